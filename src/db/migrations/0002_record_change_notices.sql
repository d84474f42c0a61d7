-- In-process caches of rendered records (image JSON, filters) must drop an entry as soon as what it
-- was built from changes, in every process serving the API. The outbox already names each change
-- (kind and record id) in the transaction that makes it; this announces the same pair on the
-- `record_changes` channel, delivered at commit. Within a transaction PostgreSQL folds equal
-- notifications into one. Bulk loaders that skip the outbox announce `*` (everything changed).

CREATE OR REPLACE FUNCTION tagwise_outbox_add(kind text, record_id integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_outbox (index, record_id) VALUES (kind, record_id);
  PERFORM pg_notify('search_outbox', '');
  PERFORM pg_notify('record_changes', kind || ':' || record_id);
END $$;
