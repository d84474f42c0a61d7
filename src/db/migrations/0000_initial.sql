CREATE TABLE "api_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "badge_awards" (
	"id" serial PRIMARY KEY NOT NULL,
	"badge_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"label" text DEFAULT '' NOT NULL,
	"awarded_on" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "badges" (
	"id" serial PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"image" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_links" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"tag_id" integer,
	"uri" text NOT NULL,
	"state" text DEFAULT 'unverified' NOT NULL,
	"public" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"email" text,
	"role" text DEFAULT 'user' NOT NULL,
	"hide_default_role" boolean DEFAULT false NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"avatar" text,
	"verified" boolean DEFAULT false NOT NULL,
	"images_count" integer DEFAULT 0 NOT NULL,
	"comments_count" integer DEFAULT 0 NOT NULL,
	"posts_count" integer DEFAULT 0 NOT NULL,
	"topics_count" integer DEFAULT 0 NOT NULL,
	"current_filter_id" integer,
	"images_per_page" integer DEFAULT 25 NOT NULL,
	"watched_tag_ids" integer[] DEFAULT '{}' NOT NULL,
	"watched_images_query_str" text DEFAULT '' NOT NULL,
	"watched_images_exclude_str" text DEFAULT '' NOT NULL,
	"no_spoilered_in_watched" boolean DEFAULT false NOT NULL,
	"confirmed_at" timestamp with time zone DEFAULT now(),
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dnp_entries" (
	"id" serial PRIMARY KEY NOT NULL,
	"tag_id" integer NOT NULL,
	"dnp_type" text NOT NULL,
	"conditions" text DEFAULT '' NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"hide_reason" boolean DEFAULT false NOT NULL,
	"state" text DEFAULT 'listed' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tag_implications" (
	"tag_id" integer NOT NULL,
	"implied_tag_id" integer NOT NULL,
	CONSTRAINT "tag_implications_tag_id_implied_tag_id_pk" PRIMARY KEY("tag_id","implied_tag_id")
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"namespace" text,
	"name_in_namespace" text NOT NULL,
	"category" text,
	"description" text DEFAULT '' NOT NULL,
	"short_description" text DEFAULT '' NOT NULL,
	"image" text,
	"images_count" integer DEFAULT 0 NOT NULL,
	"aliased_tag_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "image_faves" (
	"image_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "image_faves_image_id_user_id_pk" PRIMARY KEY("image_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "image_features" (
	"id" serial PRIMARY KEY NOT NULL,
	"image_id" integer NOT NULL,
	"user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "image_hides" (
	"image_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "image_hides_image_id_user_id_pk" PRIMARY KEY("image_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "image_intensities" (
	"image_id" integer PRIMARY KEY NOT NULL,
	"nw" double precision NOT NULL,
	"ne" double precision NOT NULL,
	"sw" double precision NOT NULL,
	"se" double precision NOT NULL
);
--> statement-breakpoint
CREATE TABLE "image_sources" (
	"image_id" integer NOT NULL,
	"source" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "image_sources_image_id_source_pk" PRIMARY KEY("image_id","source")
);
--> statement-breakpoint
CREATE TABLE "image_subscriptions" (
	"image_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "image_subscriptions_image_id_user_id_pk" PRIMARY KEY("image_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "image_taggings" (
	"image_id" integer NOT NULL,
	"tag_id" integer NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "image_taggings_image_id_tag_id_pk" PRIMARY KEY("image_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "image_votes" (
	"image_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"up" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "image_votes_image_id_user_id_pk" PRIMARY KEY("image_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "images" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer,
	"anonymous" boolean DEFAULT false NOT NULL,
	"ip" "inet",
	"fingerprint" text,
	"image_name" text DEFAULT '' NOT NULL,
	"image_width" integer DEFAULT 0 NOT NULL,
	"image_height" integer DEFAULT 0 NOT NULL,
	"image_size" integer DEFAULT 0 NOT NULL,
	"image_orig_size" integer DEFAULT 0 NOT NULL,
	"image_format" text NOT NULL,
	"image_mime_type" text NOT NULL,
	"image_aspect_ratio" double precision DEFAULT 1 NOT NULL,
	"image_duration" double precision DEFAULT 0 NOT NULL,
	"is_animated" boolean DEFAULT false NOT NULL,
	"image_sha512_hash" text DEFAULT '' NOT NULL,
	"image_orig_sha512_hash" text DEFAULT '' NOT NULL,
	"storage_key" text,
	"description" text DEFAULT '' NOT NULL,
	"score" integer DEFAULT 0 NOT NULL,
	"upvotes_count" integer DEFAULT 0 NOT NULL,
	"downvotes_count" integer DEFAULT 0 NOT NULL,
	"faves_count" integer DEFAULT 0 NOT NULL,
	"hides_count" integer DEFAULT 0 NOT NULL,
	"comments_count" integer DEFAULT 0 NOT NULL,
	"approved" boolean DEFAULT true NOT NULL,
	"hidden_from_users" boolean DEFAULT false NOT NULL,
	"deletion_reason" text,
	"duplicate_id" integer,
	"deleted_by_id" integer,
	"destroyed_content" boolean DEFAULT false NOT NULL,
	"processed" boolean DEFAULT false NOT NULL,
	"thumbnails_generated" boolean DEFAULT false NOT NULL,
	"duplication_checked" boolean DEFAULT false NOT NULL,
	"scratchpad" text,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "comments" (
	"id" serial PRIMARY KEY NOT NULL,
	"image_id" integer NOT NULL,
	"user_id" integer,
	"anonymous" boolean DEFAULT false NOT NULL,
	"ip" "inet",
	"fingerprint" text,
	"body" text NOT NULL,
	"approved" boolean DEFAULT true NOT NULL,
	"hidden_from_users" boolean DEFAULT false NOT NULL,
	"destroyed_content" boolean DEFAULT false NOT NULL,
	"deletion_reason" text DEFAULT '' NOT NULL,
	"deleted_by_id" integer,
	"edited_at" timestamp with time zone,
	"edit_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forums" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"short_name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"access_level" text DEFAULT 'normal' NOT NULL,
	"topic_count" integer DEFAULT 0 NOT NULL,
	"post_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "posts" (
	"id" serial PRIMARY KEY NOT NULL,
	"topic_id" integer NOT NULL,
	"user_id" integer,
	"anonymous" boolean DEFAULT false NOT NULL,
	"ip" "inet",
	"fingerprint" text,
	"body" text NOT NULL,
	"topic_position" integer NOT NULL,
	"approved" boolean DEFAULT true NOT NULL,
	"hidden_from_users" boolean DEFAULT false NOT NULL,
	"destroyed_content" boolean DEFAULT false NOT NULL,
	"deletion_reason" text DEFAULT '' NOT NULL,
	"deleted_by_id" integer,
	"edited_at" timestamp with time zone,
	"edit_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "topics" (
	"id" serial PRIMARY KEY NOT NULL,
	"forum_id" integer NOT NULL,
	"user_id" integer,
	"anonymous" boolean DEFAULT false NOT NULL,
	"title" text NOT NULL,
	"slug" text NOT NULL,
	"sticky" boolean DEFAULT false NOT NULL,
	"locked_at" timestamp with time zone,
	"hidden_from_users" boolean DEFAULT false NOT NULL,
	"deletion_reason" text DEFAULT '' NOT NULL,
	"post_count" integer DEFAULT 0 NOT NULL,
	"view_count" integer DEFAULT 0 NOT NULL,
	"last_replied_to_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "filters" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"system" boolean DEFAULT false NOT NULL,
	"public" boolean DEFAULT false NOT NULL,
	"user_id" integer,
	"user_count" integer DEFAULT 0 NOT NULL,
	"hidden_tag_ids" integer[] DEFAULT '{}' NOT NULL,
	"spoilered_tag_ids" integer[] DEFAULT '{}' NOT NULL,
	"hidden_complex_str" text DEFAULT '' NOT NULL,
	"spoilered_complex_str" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "galleries" (
	"id" serial PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"spoiler_warning" text DEFAULT '' NOT NULL,
	"thumbnail_id" integer NOT NULL,
	"creator_id" integer NOT NULL,
	"image_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gallery_interactions" (
	"gallery_id" integer NOT NULL,
	"image_id" integer NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "gallery_interactions_gallery_id_image_id_pk" PRIMARY KEY("gallery_id","image_id")
);
--> statement-breakpoint
CREATE TABLE "gallery_subscriptions" (
	"gallery_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "gallery_subscriptions_gallery_id_user_id_pk" PRIMARY KEY("gallery_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "bans" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer,
	"ip" "cidr",
	"reason" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"automatic" boolean DEFAULT false NOT NULL,
	"valid_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 5 NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "search_outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"index" text NOT NULL,
	"record_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "badge_awards" ADD CONSTRAINT "badge_awards_badge_id_badges_id_fk" FOREIGN KEY ("badge_id") REFERENCES "public"."badges"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "badge_awards" ADD CONSTRAINT "badge_awards_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_links" ADD CONSTRAINT "user_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_links" ADD CONSTRAINT "user_links_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dnp_entries" ADD CONSTRAINT "dnp_entries_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_implications" ADD CONSTRAINT "tag_implications_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_implications" ADD CONSTRAINT "tag_implications_implied_tag_id_tags_id_fk" FOREIGN KEY ("implied_tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tags" ADD CONSTRAINT "tags_aliased_tag_id_tags_id_fk" FOREIGN KEY ("aliased_tag_id") REFERENCES "public"."tags"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_faves" ADD CONSTRAINT "image_faves_image_id_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."images"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_faves" ADD CONSTRAINT "image_faves_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_features" ADD CONSTRAINT "image_features_image_id_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."images"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_features" ADD CONSTRAINT "image_features_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_hides" ADD CONSTRAINT "image_hides_image_id_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."images"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_hides" ADD CONSTRAINT "image_hides_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_intensities" ADD CONSTRAINT "image_intensities_image_id_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."images"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_sources" ADD CONSTRAINT "image_sources_image_id_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."images"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_subscriptions" ADD CONSTRAINT "image_subscriptions_image_id_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."images"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_subscriptions" ADD CONSTRAINT "image_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_taggings" ADD CONSTRAINT "image_taggings_image_id_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."images"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_taggings" ADD CONSTRAINT "image_taggings_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_votes" ADD CONSTRAINT "image_votes_image_id_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."images"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_votes" ADD CONSTRAINT "image_votes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "images" ADD CONSTRAINT "images_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "images" ADD CONSTRAINT "images_deleted_by_id_users_id_fk" FOREIGN KEY ("deleted_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_image_id_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."images"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_deleted_by_id_users_id_fk" FOREIGN KEY ("deleted_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "posts" ADD CONSTRAINT "posts_topic_id_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."topics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "posts" ADD CONSTRAINT "posts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "posts" ADD CONSTRAINT "posts_deleted_by_id_users_id_fk" FOREIGN KEY ("deleted_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "topics" ADD CONSTRAINT "topics_forum_id_forums_id_fk" FOREIGN KEY ("forum_id") REFERENCES "public"."forums"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "topics" ADD CONSTRAINT "topics_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filters" ADD CONSTRAINT "filters_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "galleries" ADD CONSTRAINT "galleries_thumbnail_id_images_id_fk" FOREIGN KEY ("thumbnail_id") REFERENCES "public"."images"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "galleries" ADD CONSTRAINT "galleries_creator_id_users_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gallery_interactions" ADD CONSTRAINT "gallery_interactions_gallery_id_galleries_id_fk" FOREIGN KEY ("gallery_id") REFERENCES "public"."galleries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gallery_interactions" ADD CONSTRAINT "gallery_interactions_image_id_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."images"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gallery_subscriptions" ADD CONSTRAINT "gallery_subscriptions_gallery_id_galleries_id_fk" FOREIGN KEY ("gallery_id") REFERENCES "public"."galleries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gallery_subscriptions" ADD CONSTRAINT "gallery_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bans" ADD CONSTRAINT "bans_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_idx" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "badge_awards_user_idx" ON "badge_awards" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "user_links_user_idx" ON "user_links" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_name_idx" ON "users" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "users_slug_idx" ON "users" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "dnp_entries_tag_idx" ON "dnp_entries" USING btree ("tag_id");--> statement-breakpoint
CREATE INDEX "tag_implications_implied_idx" ON "tag_implications" USING btree ("implied_tag_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tags_name_idx" ON "tags" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "tags_slug_idx" ON "tags" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "tags_aliased_tag_idx" ON "tags" USING btree ("aliased_tag_id");--> statement-breakpoint
CREATE INDEX "image_faves_user_idx" ON "image_faves" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "image_hides_user_idx" ON "image_hides" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "image_intensities_nw_idx" ON "image_intensities" USING btree ("nw");--> statement-breakpoint
CREATE INDEX "image_subscriptions_user_idx" ON "image_subscriptions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "image_taggings_tag_idx" ON "image_taggings" USING btree ("tag_id");--> statement-breakpoint
CREATE INDEX "image_votes_user_idx" ON "image_votes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "images_user_idx" ON "images" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "images_orig_sha512_idx" ON "images" USING btree ("image_orig_sha512_hash");--> statement-breakpoint
CREATE INDEX "images_first_seen_idx" ON "images" USING btree ("first_seen_at");--> statement-breakpoint
CREATE INDEX "comments_image_idx" ON "comments" USING btree ("image_id");--> statement-breakpoint
CREATE INDEX "comments_user_idx" ON "comments" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "forums_short_name_idx" ON "forums" USING btree ("short_name");--> statement-breakpoint
CREATE INDEX "posts_topic_position_idx" ON "posts" USING btree ("topic_id","topic_position");--> statement-breakpoint
CREATE INDEX "posts_user_idx" ON "posts" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "topics_forum_slug_idx" ON "topics" USING btree ("forum_id","slug");--> statement-breakpoint
CREATE INDEX "filters_user_idx" ON "filters" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "galleries_creator_idx" ON "galleries" USING btree ("creator_id");--> statement-breakpoint
CREATE INDEX "gallery_interactions_image_idx" ON "gallery_interactions" USING btree ("image_id");--> statement-breakpoint
CREATE INDEX "bans_user_idx" ON "bans" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "jobs_claim_idx" ON "jobs" USING btree ("state","run_at");