-- The highest outbox id the embedded engine's indexer has deleted after a flush: every index on
-- disk must cover at least this position, else it missed writes whose outbox rows are gone
-- (e.g. a lost log) and is rebuilt at start. One row.
CREATE TABLE "search_outbox_applied" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"through" bigint NOT NULL,
	CONSTRAINT "search_outbox_applied_singleton" CHECK ("singleton")
);
