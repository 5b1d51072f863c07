-- CreateTable
CREATE TABLE "record_numbers" (
    "record_id" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "value" REAL NOT NULL,

    PRIMARY KEY ("record_id", "path"),
    CONSTRAINT "record_numbers_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "records" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "record_numbers_path_value_idx" ON "record_numbers"("path", "value");

-- Backfill (written by hand): the numbers of the records stored before this migration, with the
-- paths the store writes (record-numbers.ts): object keys of [A-Za-z0-9_-] joined by `.`, array
-- positions as `[n]`, starting at a key of the payload object.
WITH RECURSIVE "fields" ("record_id", "path", "type", "value") AS (
    SELECT r."id", e."key", e."type", e."value"
    FROM "records" r, json_each(CASE json_type(CAST(r."payload" AS TEXT)) WHEN 'object' THEN CAST(r."payload" AS TEXT) ELSE '{}' END) e
    WHERE e."key" <> '' AND e."key" NOT GLOB '*[^A-Za-z0-9_-]*'
  UNION ALL
    SELECT f."record_id", CASE f."type" WHEN 'array' THEN f."path" || '[' || e."key" || ']' ELSE f."path" || '.' || e."key" END, e."type", e."value"
    FROM "fields" f, json_each(CASE WHEN f."type" IN ('object', 'array') THEN f."value" ELSE '{}' END) e
    WHERE f."type" = 'array' OR (e."key" <> '' AND e."key" NOT GLOB '*[^A-Za-z0-9_-]*')
)
INSERT INTO "record_numbers" ("record_id", "path", "value")
SELECT "record_id", "path", "value" FROM "fields" WHERE "type" IN ('integer', 'real');
