-- More announcements on `record_changes` (see 0002) for what the API's in-memory caches are built
-- from but no index document carries, so the outbox never named it: a tag's do-not-post entries
-- (`tag_dnp:<tag id>`, the tag answers of search/tags), the featured image (`image_features:<image
-- id>`, GET /images/featured) and a user's avatar (`user:<id>`, the author of comments). These
-- announce only: nothing is queued for the indexer. Bulk loaders that skip the outbox announce `*`.

CREATE FUNCTION tagwise_announce_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec record := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  kinds text[] := TG_ARGV;
  i integer;
  id integer;
  old_id integer;
BEGIN
  IF NOT tagwise_outbox_enabled() THEN RETURN NULL; END IF;
  -- Arguments come in pairs: the kind announced, then the column of this table holding the id.
  FOR i IN array_lower(kinds, 1) .. array_upper(kinds, 1) BY 2 LOOP
    EXECUTE format('SELECT ($1).%I', kinds[i + 1]) INTO id USING rec;
    IF id IS NOT NULL THEN PERFORM pg_notify('record_changes', kinds[i] || ':' || id); END IF;
    IF TG_OP = 'UPDATE' THEN
      -- A row moved to another parent changes the old parent's answer too.
      EXECUTE format('SELECT ($1).%I', kinds[i + 1]) INTO old_id USING OLD;
      IF old_id IS DISTINCT FROM id AND old_id IS NOT NULL THEN PERFORM pg_notify('record_changes', kinds[i] || ':' || old_id); END IF;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER dnp_entries_announce AFTER INSERT OR UPDATE OR DELETE ON dnp_entries
  FOR EACH ROW EXECUTE FUNCTION tagwise_announce_row('tag_dnp', 'tag_id');
--> statement-breakpoint
CREATE TRIGGER image_features_announce AFTER INSERT OR UPDATE OR DELETE ON image_features
  FOR EACH ROW EXECUTE FUNCTION tagwise_announce_row('image_features', 'image_id');
--> statement-breakpoint
CREATE TRIGGER users_avatar_announce AFTER UPDATE OF avatar ON users
  FOR EACH ROW WHEN (OLD.avatar IS DISTINCT FROM NEW.avatar) EXECUTE FUNCTION tagwise_announce_row('user', 'id');
