-- RedefineTables. The store's migrator runs a SQLite migration with foreign keys off and checks
-- them before it commits (the PRAGMAs below are no-ops inside its transaction): dropping "records"
-- would otherwise cascade to the keys, grants and numbers that reference it.
-- Backfill (written by hand, in the INSERTs): the records stored before this migration are in
-- their owner's tenant's namespace ('' without a tenant), and so are their keys, grants and numbers.
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

    PRIMARY KEY ("id", "namespace")
);
INSERT INTO "new_records" ("created_at", "created_by_sub", "id", "namespace", "model", "payload", "tenant_id", "updated_at", "version") SELECT "created_at", "created_by_sub", "id", COALESCE("tenant_id", ''), "model", "payload", "tenant_id", "updated_at", "version" FROM "records";
DROP TABLE "records";
ALTER TABLE "new_records" RENAME TO "records";
CREATE INDEX "records_model_version_created_at_id_namespace_idx" ON "records"("model", "version", "created_at", "id", "namespace");
CREATE INDEX "records_created_at_id_namespace_idx" ON "records"("created_at", "id", "namespace");
CREATE INDEX "records_created_by_sub_tenant_id_idx" ON "records"("created_by_sub", "tenant_id");
CREATE TABLE "new_idempotency_keys" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "record_id" TEXT NOT NULL,
    "record_namespace" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    "expires_at" DATETIME NOT NULL,

    PRIMARY KEY ("scope", "key"),
    CONSTRAINT "idempotency_keys_record_id_record_namespace_fkey" FOREIGN KEY ("record_id", "record_namespace") REFERENCES "records" ("id", "namespace") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_idempotency_keys" ("created_at", "expires_at", "fingerprint", "key", "record_id", "record_namespace", "scope") SELECT "created_at", "expires_at", "fingerprint", "key", "record_id", (SELECT r."namespace" FROM "records" r WHERE r."id" = "record_id"), "scope" FROM "idempotency_keys";
DROP TABLE "idempotency_keys";
ALTER TABLE "new_idempotency_keys" RENAME TO "idempotency_keys";
CREATE INDEX "idempotency_keys_record_id_record_namespace_idx" ON "idempotency_keys"("record_id", "record_namespace");
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");
CREATE TABLE "new_record_grants" (
    "record_id" TEXT NOT NULL,
    "record_namespace" TEXT NOT NULL,
    "grantee_kind" TEXT NOT NULL,
    "grantee" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,

    PRIMARY KEY ("record_id", "record_namespace", "grantee_kind", "grantee"),
    CONSTRAINT "record_grants_record_id_record_namespace_fkey" FOREIGN KEY ("record_id", "record_namespace") REFERENCES "records" ("id", "namespace") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_record_grants" ("created_at", "grantee", "grantee_kind", "record_id", "record_namespace") SELECT "created_at", "grantee", "grantee_kind", "record_id", (SELECT r."namespace" FROM "records" r WHERE r."id" = "record_id") FROM "record_grants";
DROP TABLE "record_grants";
ALTER TABLE "new_record_grants" RENAME TO "record_grants";
CREATE INDEX "record_grants_grantee_kind_grantee_idx" ON "record_grants"("grantee_kind", "grantee");
CREATE TABLE "new_record_numbers" (
    "record_id" TEXT NOT NULL,
    "record_namespace" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "value" REAL NOT NULL,

    PRIMARY KEY ("record_id", "record_namespace", "path"),
    CONSTRAINT "record_numbers_record_id_record_namespace_fkey" FOREIGN KEY ("record_id", "record_namespace") REFERENCES "records" ("id", "namespace") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_record_numbers" ("path", "record_id", "record_namespace", "value") SELECT "path", "record_id", (SELECT r."namespace" FROM "records" r WHERE r."id" = "record_id"), "value" FROM "record_numbers";
DROP TABLE "record_numbers";
ALTER TABLE "new_record_numbers" RENAME TO "record_numbers";
CREATE INDEX "record_numbers_path_value_idx" ON "record_numbers"("path", "value");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
