-- Written by hand (issue 35): usage kept each operation as its client sent it, literals included
-- (an e-mail, an id), under the sha256 of that text, which confirms a guessed secret. Operations
-- are now kept as signatures without literals; those stored before lose their text and their
-- digest, and get a random key, which their counts follow. Names, types, coordinates, clients,
-- days, inputs and requests stay: a schema check reads those.
CREATE TEMPORARY TABLE "usage_rekey" AS
  SELECT "hash" AS "old_hash", 'legacy:' || lower(hex(randomblob(16))) AS "new_hash" FROM "usage_operations";

UPDATE "usage_counts" SET "hash" = (SELECT "new_hash" FROM "usage_rekey" WHERE "old_hash" = "usage_counts"."hash")
  WHERE "hash" IN (SELECT "old_hash" FROM "usage_rekey");

UPDATE "usage_operations" SET "body" = '', "hash" = (SELECT "new_hash" FROM "usage_rekey" WHERE "old_hash" = "usage_operations"."hash");

-- Counts of an operation no longer kept would keep the digest.
DELETE FROM "usage_counts" WHERE "hash" NOT IN (SELECT "hash" FROM "usage_operations");

DROP TABLE "usage_rekey";
