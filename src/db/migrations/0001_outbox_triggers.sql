-- Every change to a record that an index document is built from writes an outbox row in the same
-- transaction, so the indexer can never miss a change. Rows name an index (images, comments, posts,
-- galleries, tags, filters) or a fan-out the indexer expands: user (a rename touches every document
-- that carries the name), tag_images (a tag rename or alias change touches the images that carry it),
-- image_comments, topic_posts and forum_posts (fields copied from a parent into child documents).
-- Bulk loaders that reindex everything afterwards set `tagwise.skip_outbox = on` for their session.

CREATE FUNCTION tagwise_outbox_enabled() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT coalesce(current_setting('tagwise.skip_outbox', true), '') <> 'on'
$$;
--> statement-breakpoint
CREATE FUNCTION tagwise_outbox_add(kind text, record_id integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_outbox (index, record_id) VALUES (kind, record_id);
  PERFORM pg_notify('search_outbox', '');
END $$;
--> statement-breakpoint
CREATE FUNCTION tagwise_outbox_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec record := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  kinds text[] := TG_ARGV;
  i integer;
  id integer;
  old_id integer;
BEGIN
  IF NOT tagwise_outbox_enabled() THEN RETURN NULL; END IF;
  -- Arguments come in pairs: outbox kind, then the column of this table holding the record id.
  FOR i IN array_lower(kinds, 1) .. array_upper(kinds, 1) BY 2 LOOP
    EXECUTE format('SELECT ($1).%I', kinds[i + 1]) INTO id USING rec;
    IF id IS NOT NULL THEN PERFORM tagwise_outbox_add(kinds[i], id); END IF;
    IF TG_OP = 'UPDATE' THEN
      -- A row moved to another parent changes the old parent's document too.
      EXECUTE format('SELECT ($1).%I', kinds[i + 1]) INTO old_id USING OLD;
      IF old_id IS DISTINCT FROM id AND old_id IS NOT NULL THEN PERFORM tagwise_outbox_add(kinds[i], old_id); END IF;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER images_outbox AFTER INSERT OR UPDATE OR DELETE ON images
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('images', 'id', 'image_comments', 'id');
--> statement-breakpoint
CREATE TRIGGER image_taggings_outbox AFTER INSERT OR UPDATE OR DELETE ON image_taggings
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('images', 'image_id', 'image_comments', 'image_id');
--> statement-breakpoint
CREATE TRIGGER image_sources_outbox AFTER INSERT OR UPDATE OR DELETE ON image_sources
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('images', 'image_id');
--> statement-breakpoint
CREATE TRIGGER image_faves_outbox AFTER INSERT OR DELETE ON image_faves
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('images', 'image_id');
--> statement-breakpoint
CREATE TRIGGER image_hides_outbox AFTER INSERT OR DELETE ON image_hides
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('images', 'image_id');
--> statement-breakpoint
CREATE TRIGGER image_votes_outbox AFTER INSERT OR UPDATE OR DELETE ON image_votes
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('images', 'image_id');
--> statement-breakpoint
CREATE TRIGGER image_subscriptions_outbox AFTER INSERT OR DELETE ON image_subscriptions
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('images', 'image_id');
--> statement-breakpoint
CREATE TRIGGER gallery_interactions_outbox AFTER INSERT OR UPDATE OR DELETE ON gallery_interactions
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('images', 'image_id', 'galleries', 'gallery_id');
--> statement-breakpoint
CREATE TRIGGER galleries_outbox AFTER INSERT OR UPDATE OR DELETE ON galleries
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('galleries', 'id');
--> statement-breakpoint
CREATE TRIGGER gallery_subscriptions_outbox AFTER INSERT OR DELETE ON gallery_subscriptions
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('galleries', 'gallery_id');
--> statement-breakpoint
CREATE TRIGGER comments_outbox AFTER INSERT OR UPDATE OR DELETE ON comments
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('comments', 'id');
--> statement-breakpoint
CREATE TRIGGER posts_outbox AFTER INSERT OR UPDATE OR DELETE ON posts
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('posts', 'id');
--> statement-breakpoint
CREATE TRIGGER topics_outbox AFTER UPDATE ON topics
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('topic_posts', 'id');
--> statement-breakpoint
CREATE TRIGGER forums_outbox AFTER UPDATE ON forums
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('forum_posts', 'id');
--> statement-breakpoint
CREATE TRIGGER filters_outbox AFTER INSERT OR UPDATE OR DELETE ON filters
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('filters', 'id');
--> statement-breakpoint
CREATE TRIGGER tag_implications_outbox AFTER INSERT OR DELETE ON tag_implications
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('tags', 'tag_id', 'tags', 'implied_tag_id');
--> statement-breakpoint
CREATE FUNCTION tagwise_outbox_tag() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT tagwise_outbox_enabled() THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN
    PERFORM tagwise_outbox_add('tags', OLD.id);
    IF OLD.aliased_tag_id IS NOT NULL THEN PERFORM tagwise_outbox_add('tags', OLD.aliased_tag_id); END IF;
    RETURN NULL;
  END IF;
  PERFORM tagwise_outbox_add('tags', NEW.id);
  IF TG_OP = 'UPDATE' AND (NEW.name IS DISTINCT FROM OLD.name OR NEW.aliased_tag_id IS DISTINCT FROM OLD.aliased_tag_id) THEN
    -- Image documents carry tag names and alias names: both the old and the new target change.
    PERFORM tagwise_outbox_add('tag_images', NEW.id);
    IF NEW.aliased_tag_id IS NOT NULL THEN
      PERFORM tagwise_outbox_add('tags', NEW.aliased_tag_id);
      PERFORM tagwise_outbox_add('tag_images', NEW.aliased_tag_id);
    END IF;
    IF OLD.aliased_tag_id IS NOT NULL AND OLD.aliased_tag_id IS DISTINCT FROM NEW.aliased_tag_id THEN
      PERFORM tagwise_outbox_add('tags', OLD.aliased_tag_id);
      PERFORM tagwise_outbox_add('tag_images', OLD.aliased_tag_id);
    END IF;
  ELSIF TG_OP = 'INSERT' AND NEW.aliased_tag_id IS NOT NULL THEN
    PERFORM tagwise_outbox_add('tags', NEW.aliased_tag_id);
    PERFORM tagwise_outbox_add('tag_images', NEW.aliased_tag_id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER tags_outbox AFTER INSERT OR UPDATE OR DELETE ON tags
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_tag();
--> statement-breakpoint
CREATE FUNCTION tagwise_outbox_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT tagwise_outbox_enabled() THEN RETURN NULL; END IF;
  IF NEW.name IS DISTINCT FROM OLD.name THEN PERFORM tagwise_outbox_add('user', NEW.id); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER users_outbox AFTER UPDATE ON users
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_user();
