-- One trigger function for the change log in place of migration 0007's four
-- (tagwise_change_image, tagwise_change_tagging, tagwise_change_source, tagwise_change_record),
-- writing exactly the rows they wrote. The triggers keep their names, tables and events.
--
-- TG_ARGV[0] is the kind logged; TG_ARGV[1] is `moderated` on tables with `hidden_from_users`.
-- What else a table logs follows from TG_TABLE_NAME:
--   image_taggings, image_sources: an entry of an image's tag or source list; adding or removing
--     one is a change to the image, logged while the image exists (entries removed with their
--     image are part of its deletion). A tag is logged by the name it has at that moment.
--   any other table: created and deleted; an update that changed nothing logs nothing; otherwise
--     at most one change of state (merged, images only; else hidden or unhidden), then
--       images: the old and new description, processed (thumbnails done), and always updated;
--       others: updated, unless a change of state was logged.

DROP TRIGGER images_change_log ON images;
--> statement-breakpoint
DROP TRIGGER image_taggings_change_log ON image_taggings;
--> statement-breakpoint
DROP TRIGGER image_sources_change_log ON image_sources;
--> statement-breakpoint
DROP TRIGGER comments_change_log ON comments;
--> statement-breakpoint
DROP TRIGGER posts_change_log ON posts;
--> statement-breakpoint
DROP TRIGGER tags_change_log ON tags;
--> statement-breakpoint
DROP TRIGGER galleries_change_log ON galleries;
--> statement-breakpoint
DROP FUNCTION tagwise_change_image();
--> statement-breakpoint
DROP FUNCTION tagwise_change_tagging();
--> statement-breakpoint
DROP FUNCTION tagwise_change_source();
--> statement-breakpoint
DROP FUNCTION tagwise_change_record();
--> statement-breakpoint
-- Columns of one table are read only inside an IF on that table: PL/pgSQL plans a statement when
-- it first runs, and a column the row lacks fails the plan.
CREATE FUNCTION tagwise_change_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text := TG_ARGV[0];
  rec record := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  entry_change text := CASE WHEN TG_OP = 'DELETE' THEN '_removed' ELSE '_added' END;
  state text;
  state_detail jsonb;
BEGIN
  IF TG_TABLE_NAME IN ('image_taggings', 'image_sources') THEN
    IF NOT EXISTS (SELECT 1 FROM images WHERE id = rec.image_id) THEN RETURN NULL; END IF;
    IF TG_TABLE_NAME = 'image_taggings' THEN
      PERFORM tagwise_change(kind, rec.image_id, 'tag' || entry_change,
        jsonb_build_object('tag', (SELECT name FROM tags WHERE id = rec.tag_id), 'tag_id', rec.tag_id));
    ELSE
      PERFORM tagwise_change(kind, rec.image_id, 'source' || entry_change, jsonb_build_object('source', rec.source));
    END IF;
    RETURN NULL;
  END IF;

  IF TG_OP = 'INSERT' THEN PERFORM tagwise_change(kind, NEW.id, 'created'); RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN PERFORM tagwise_change(kind, OLD.id, 'deleted'); RETURN NULL; END IF;
  IF NEW IS NOT DISTINCT FROM OLD THEN RETURN NULL; END IF;

  IF TG_TABLE_NAME = 'images' THEN
    IF NEW.duplicate_id IS NOT NULL AND NEW.duplicate_id IS DISTINCT FROM OLD.duplicate_id THEN
      state := 'merged';
      state_detail := jsonb_build_object('duplicate_of', NEW.duplicate_id);
    END IF;
  END IF;
  IF state IS NULL AND TG_ARGV[1] = 'moderated' THEN
    IF NEW.hidden_from_users AND NOT OLD.hidden_from_users THEN
      state := 'hidden';
    ELSIF OLD.hidden_from_users AND NOT NEW.hidden_from_users THEN
      state := 'unhidden';
    END IF;
  END IF;
  IF state IS NOT NULL THEN PERFORM tagwise_change(kind, NEW.id, state, state_detail); END IF;

  IF TG_TABLE_NAME = 'images' THEN
    IF NEW.description IS DISTINCT FROM OLD.description THEN
      PERFORM tagwise_change(kind, NEW.id, 'description', jsonb_build_object('old', OLD.description, 'new', NEW.description));
    END IF;
    IF NEW.thumbnails_generated AND NOT OLD.thumbnails_generated THEN
      PERFORM tagwise_change(kind, NEW.id, 'processed');
    END IF;
  ELSIF state IS NOT NULL THEN
    RETURN NULL;
  END IF;
  PERFORM tagwise_change(kind, NEW.id, 'updated');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER images_change_log AFTER INSERT OR UPDATE OR DELETE ON images
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_row('image', 'moderated');
--> statement-breakpoint
CREATE TRIGGER image_taggings_change_log AFTER INSERT OR DELETE ON image_taggings
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_row('image');
--> statement-breakpoint
CREATE TRIGGER image_sources_change_log AFTER INSERT OR DELETE ON image_sources
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_row('image');
--> statement-breakpoint
CREATE TRIGGER comments_change_log AFTER INSERT OR UPDATE OR DELETE ON comments
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_row('comment', 'moderated');
--> statement-breakpoint
CREATE TRIGGER posts_change_log AFTER INSERT OR UPDATE OR DELETE ON posts
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_row('post', 'moderated');
--> statement-breakpoint
CREATE TRIGGER tags_change_log AFTER INSERT OR UPDATE OR DELETE ON tags
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_row('tag');
--> statement-breakpoint
CREATE TRIGGER galleries_change_log AFTER INSERT OR UPDATE OR DELETE ON galleries
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_row('gallery');
