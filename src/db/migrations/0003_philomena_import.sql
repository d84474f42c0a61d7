-- Progress of `npm run import -- philomena…`: the source of the last run, the snapshot time an
-- incremental run reads from, and which tables an unfinished run has already staged (resume).
CREATE TABLE "philomena_import" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL CHECK ("id" = 1),
	"source" text NOT NULL,
	"snapshot" text,
	"completed_at" timestamp with time zone,
	"pending_source" text,
	"pending_snapshot" text,
	"staged" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
-- Philomena's anonymous galleries (creator not shown).
ALTER TABLE "galleries" ADD COLUMN "anonymous" boolean DEFAULT false NOT NULL;
