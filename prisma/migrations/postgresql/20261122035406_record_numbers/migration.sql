-- CreateTable
CREATE TABLE "record_numbers" (
    "record_id" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "record_numbers_pkey" PRIMARY KEY ("record_id","path")
);

-- CreateIndex
CREATE INDEX "record_numbers_path_value_idx" ON "record_numbers"("path", "value");

-- AddForeignKey
ALTER TABLE "record_numbers" ADD CONSTRAINT "record_numbers_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "records"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill (written by hand): the numbers of the records stored before this migration, with the
-- paths the store writes (record-numbers.ts): object keys of [A-Za-z0-9_-] joined by `.`, array
-- positions as `[n]`, starting at a key of the payload object.
WITH RECURSIVE "fields" ("record_id", "path", "value") AS (
    SELECT r."id", e."key", e."value"
    FROM "records" r
    CROSS JOIN LATERAL jsonb_each(CASE jsonb_typeof(r."payload") WHEN 'object' THEN r."payload" ELSE '{}'::jsonb END) e
    WHERE e."key" ~ '^[A-Za-z0-9_-]+$'
  UNION ALL
    SELECT f."record_id", f."path" || c."step", c."value"
    FROM "fields" f
    CROSS JOIN LATERAL (
        SELECT '.' || o."key" AS "step", o."value"
        FROM jsonb_each(CASE jsonb_typeof(f."value") WHEN 'object' THEN f."value" ELSE '{}'::jsonb END) o
        WHERE o."key" ~ '^[A-Za-z0-9_-]+$'
      UNION ALL
        SELECT '[' || (a."position" - 1) || ']', a."value"
        FROM jsonb_array_elements(CASE jsonb_typeof(f."value") WHEN 'array' THEN f."value" ELSE '[]'::jsonb END) WITH ORDINALITY a("value", "position")
    ) c
)
INSERT INTO "record_numbers" ("record_id", "path", "value")
SELECT "record_id", "path", "value"::double precision FROM "fields" WHERE jsonb_typeof("value") = 'number';
