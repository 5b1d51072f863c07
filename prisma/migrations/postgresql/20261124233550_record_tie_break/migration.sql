-- The last key of every order of records becomes tie_break, a random number, instead of the
-- namespace (the owner's tenant), which page cursors hold (docs/STORE.md "Keyset pages"). Its
-- default is volatile, so adding the column draws a number for each stored record (the table is
-- rewritten once), and writers that do not name it, older processes included, still insert.
-- DropIndex
DROP INDEX "records_model_version_created_at_id_namespace_idx";

-- DropIndex
DROP INDEX "records_created_at_id_namespace_idx";

-- AlterTable
ALTER TABLE "records" ADD COLUMN     "tie_break" BIGINT NOT NULL DEFAULT floor(random() * 9007199254740991);

-- CreateIndex
CREATE INDEX "records_model_version_created_at_id_tie_break_idx" ON "records"("model", "version", "created_at", "id", "tie_break");

-- CreateIndex
CREATE UNIQUE INDEX "records_created_at_id_tie_break_key" ON "records"("created_at", "id", "tie_break");
