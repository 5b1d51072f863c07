-- Written by hand (issue 35): usage kept each operation as its client sent it, literals included
-- (an e-mail, an id), under the sha256 of that text, which confirms a guessed secret. Operations
-- are now kept as signatures without literals; those stored before lose their text and their
-- digest, and get a random key, which their counts follow. Names, types, coordinates, clients,
-- days, inputs and requests stay: a schema check reads those.
CREATE TEMPORARY TABLE "usage_rekey" AS
  SELECT "hash" AS "old_hash", 'legacy:' || replace(gen_random_uuid()::text, '-', '') AS "new_hash" FROM "usage_operations";

UPDATE "usage_counts" SET "hash" = "usage_rekey"."new_hash" FROM "usage_rekey" WHERE "usage_counts"."hash" = "usage_rekey"."old_hash";

UPDATE "usage_operations" SET "hash" = "usage_rekey"."new_hash", "body" = '' FROM "usage_rekey" WHERE "usage_operations"."hash" = "usage_rekey"."old_hash";

-- Counts of an operation no longer kept would keep the digest.
DELETE FROM "usage_counts" WHERE "hash" NOT IN (SELECT "hash" FROM "usage_operations");

DROP TABLE "usage_rekey";
