-- The last key of every order of records becomes tie_break, a random number, instead of the
-- namespace (the owner's tenant), which page cursors hold (docs/STORE.md "Keyset pages").
-- RedefineTables (SQLite adds no column with an expression default otherwise): the copy leaves
-- tie_break to its default, which draws a number for each stored record. The store's migrator runs
-- it with foreign keys off and checks them before it commits (the PRAGMAs below are no-ops inside
-- its transaction): dropping "records" would otherwise cascade to the keys, grants and numbers.
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_records" (
    "id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_by_sub" TEXT NOT NULL,
    "tenant_id" TEXT,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL,
    "tie_break" BIGINT NOT NULL DEFAULT (random() & 9007199254740991),

    PRIMARY KEY ("id", "namespace")
);
INSERT INTO "new_records" ("created_at", "created_by_sub", "id", "model", "namespace", "payload", "tenant_id", "updated_at", "version") SELECT "created_at", "created_by_sub", "id", "model", "namespace", "payload", "tenant_id", "updated_at", "version" FROM "records";
DROP TABLE "records";
ALTER TABLE "new_records" RENAME TO "records";
CREATE INDEX "records_model_version_created_at_id_tie_break_idx" ON "records"("model", "version", "created_at", "id", "tie_break");
CREATE INDEX "records_created_by_sub_tenant_id_idx" ON "records"("created_by_sub", "tenant_id");
CREATE UNIQUE INDEX "records_created_at_id_tie_break_key" ON "records"("created_at", "id", "tie_break");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
