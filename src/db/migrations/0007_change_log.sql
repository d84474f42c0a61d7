-- The change log: every change to a public record, in commit order, kept for a retention window
-- (the search outbox is deleted as it is indexed, so it cannot serve feeds). It feeds the
-- firehose socket, live searches and the change feed (`/api/v1/json/changes`).
--
-- Rows are written by triggers in the changing transaction, with the values a listener cannot
-- read afterwards (a removed tag's name, the old description, a removed source). `seq` is the
-- position in commit order: a deferred trigger assigns it just before commit under one advisory
-- lock, held until the commit completes, so a reader that sees `seq` N has seen every row below N
-- that will ever exist. Bulk loaders that skip the outbox (`tagwise.skip_outbox`) log one `board`
-- `reset` row instead: feeds tell their readers to start over from a dump.

CREATE TABLE change_log (
  id bigserial PRIMARY KEY,
  seq bigint,
  xact xid8 NOT NULL DEFAULT pg_current_xact_id(),
  kind text NOT NULL,
  record_id integer NOT NULL,
  change text NOT NULL,
  detail jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE UNIQUE INDEX change_log_seq_idx ON change_log (seq);
--> statement-breakpoint
CREATE INDEX change_log_created_idx ON change_log (created_at);
--> statement-breakpoint
CREATE SEQUENCE change_log_seq_seq;
--> statement-breakpoint
-- How far the log was pruned: a cursor below `pruned_through` may have missed rows.
CREATE TABLE change_log_horizon (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  pruned_through bigint NOT NULL DEFAULT 0,
  pruned_at timestamptz
);
--> statement-breakpoint
INSERT INTO change_log_horizon DEFAULT VALUES;
--> statement-breakpoint
CREATE FUNCTION tagwise_change(kind text, record_id integer, change text, detail jsonb DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT tagwise_outbox_enabled() THEN
    IF coalesce(current_setting('tagwise.change_log_reset', true), '') <> 'on' THEN
      PERFORM set_config('tagwise.change_log_reset', 'on', true);
      INSERT INTO change_log (kind, record_id, change) VALUES ('board', 0, 'reset');
    END IF;
    RETURN;
  END IF;
  INSERT INTO change_log (kind, record_id, change, detail) VALUES (kind, record_id, change, detail);
END $$;
--> statement-breakpoint
CREATE FUNCTION tagwise_change_log_seal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- 0x7461_6777_0009: one lock for every sealing transaction, released when its commit is done.
  PERFORM pg_advisory_xact_lock(127961696501769);
  UPDATE change_log SET seq = nextval('change_log_seq_seq') WHERE id = NEW.id;
  PERFORM pg_notify('change_log', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER change_log_seal AFTER INSERT ON change_log
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tagwise_change_log_seal();
--> statement-breakpoint
-- Created, updated (any column), hidden and unhidden, merged, deleted, thumbnails done, and the
-- old and new description.
CREATE FUNCTION tagwise_change_image() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN PERFORM tagwise_change('image', NEW.id, 'created'); RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN PERFORM tagwise_change('image', OLD.id, 'deleted'); RETURN NULL; END IF;
  IF NEW.duplicate_id IS NOT NULL AND NEW.duplicate_id IS DISTINCT FROM OLD.duplicate_id THEN
    PERFORM tagwise_change('image', NEW.id, 'merged', jsonb_build_object('duplicate_of', NEW.duplicate_id));
  ELSIF NEW.hidden_from_users AND NOT OLD.hidden_from_users THEN
    PERFORM tagwise_change('image', NEW.id, 'hidden');
  ELSIF OLD.hidden_from_users AND NOT NEW.hidden_from_users THEN
    PERFORM tagwise_change('image', NEW.id, 'unhidden');
  END IF;
  IF NEW.description IS DISTINCT FROM OLD.description THEN
    PERFORM tagwise_change('image', NEW.id, 'description', jsonb_build_object('old', OLD.description, 'new', NEW.description));
  END IF;
  IF NEW.thumbnails_generated AND NOT OLD.thumbnails_generated THEN
    PERFORM tagwise_change('image', NEW.id, 'processed');
  END IF;
  IF NEW IS DISTINCT FROM OLD THEN PERFORM tagwise_change('image', NEW.id, 'updated'); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER images_change_log AFTER INSERT OR UPDATE OR DELETE ON images
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_image();
--> statement-breakpoint
-- A tag added to or removed from a live image, by name (the name as it was at that moment).
CREATE FUNCTION tagwise_change_tagging() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec record := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
BEGIN
  -- Taggings removed with their image are part of the image's deletion.
  IF NOT EXISTS (SELECT 1 FROM images WHERE id = rec.image_id) THEN RETURN NULL; END IF;
  PERFORM tagwise_change('image', rec.image_id, CASE WHEN TG_OP = 'DELETE' THEN 'tag_removed' ELSE 'tag_added' END,
    jsonb_build_object('tag', (SELECT name FROM tags WHERE id = rec.tag_id), 'tag_id', rec.tag_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER image_taggings_change_log AFTER INSERT OR DELETE ON image_taggings
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_tagging();
--> statement-breakpoint
CREATE FUNCTION tagwise_change_source() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec record := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM images WHERE id = rec.image_id) THEN RETURN NULL; END IF;
  PERFORM tagwise_change('image', rec.image_id, CASE WHEN TG_OP = 'DELETE' THEN 'source_removed' ELSE 'source_added' END,
    jsonb_build_object('source', rec.source));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER image_sources_change_log AFTER INSERT OR DELETE ON image_sources
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_source();
--> statement-breakpoint
-- Comments, posts, tags and galleries: created, hidden, unhidden, updated, deleted. TG_ARGV[0]
-- is the kind; tables without hidden_from_users only ever log created, updated and deleted.
CREATE FUNCTION tagwise_change_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text := TG_ARGV[0];
  was_hidden boolean;
  is_hidden boolean;
BEGIN
  IF TG_OP = 'INSERT' THEN PERFORM tagwise_change(kind, NEW.id, 'created'); RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN PERFORM tagwise_change(kind, OLD.id, 'deleted'); RETURN NULL; END IF;
  IF NEW IS NOT DISTINCT FROM OLD THEN RETURN NULL; END IF;
  IF TG_ARGV[1] = 'moderated' THEN
    was_hidden := (to_jsonb(OLD) ->> 'hidden_from_users')::boolean;
    is_hidden := (to_jsonb(NEW) ->> 'hidden_from_users')::boolean;
    IF is_hidden AND NOT was_hidden THEN PERFORM tagwise_change(kind, NEW.id, 'hidden'); RETURN NULL; END IF;
    IF was_hidden AND NOT is_hidden THEN PERFORM tagwise_change(kind, NEW.id, 'unhidden'); RETURN NULL; END IF;
  END IF;
  PERFORM tagwise_change(kind, NEW.id, 'updated');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER comments_change_log AFTER INSERT OR UPDATE OR DELETE ON comments
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_record('comment', 'moderated');
--> statement-breakpoint
CREATE TRIGGER posts_change_log AFTER INSERT OR UPDATE OR DELETE ON posts
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_record('post', 'moderated');
--> statement-breakpoint
CREATE TRIGGER tags_change_log AFTER INSERT OR UPDATE OR DELETE ON tags
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_record('tag', 'plain');
--> statement-breakpoint
CREATE TRIGGER galleries_change_log AFTER INSERT OR UPDATE OR DELETE ON galleries
  FOR EACH ROW EXECUTE FUNCTION tagwise_change_record('gallery', 'plain');
