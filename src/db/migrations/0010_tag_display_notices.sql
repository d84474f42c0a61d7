-- A rendered image shows its tags' names, in an order that follows their category and namespace
-- (src/contexts/tags/display-order.ts). Every upload and tag change of an image updates its tags'
-- `images_count`, which announces `tags:<id>`; if the image cache dropped every image carrying a tag
-- on that notice, one upload tagged `safe` would empty most of it. This announces `tag_display:<id>`
-- only when what an image shows of the tag changes, and the image cache listens to that instead.
CREATE TRIGGER tags_display_announce AFTER UPDATE ON tags
  FOR EACH ROW WHEN (
    OLD.name IS DISTINCT FROM NEW.name OR OLD.slug IS DISTINCT FROM NEW.slug
    OR OLD.category IS DISTINCT FROM NEW.category OR OLD.namespace IS DISTINCT FROM NEW.namespace
    OR OLD.name_in_namespace IS DISTINCT FROM NEW.name_in_namespace
  ) EXECUTE FUNCTION tagwise_announce_row('tag_display', 'id');
