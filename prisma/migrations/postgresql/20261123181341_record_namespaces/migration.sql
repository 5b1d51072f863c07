-- DropForeignKey
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_record_id_fkey";

-- DropForeignKey
ALTER TABLE "record_grants" DROP CONSTRAINT "record_grants_record_id_fkey";

-- DropForeignKey
ALTER TABLE "record_numbers" DROP CONSTRAINT "record_numbers_record_id_fkey";

-- DropIndex
DROP INDEX "records_model_version_created_at_id_idx";

-- DropIndex
DROP INDEX "records_created_at_id_idx";

-- DropIndex
DROP INDEX "idempotency_keys_record_id_idx";

-- AlterTable
ALTER TABLE "records" DROP CONSTRAINT "records_pkey",
ADD COLUMN     "namespace" TEXT NOT NULL DEFAULT '',
ADD CONSTRAINT "records_pkey" PRIMARY KEY ("id", "namespace");

-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN     "record_namespace" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "record_grants" DROP CONSTRAINT "record_grants_pkey",
ADD COLUMN     "record_namespace" TEXT NOT NULL DEFAULT '',
ADD CONSTRAINT "record_grants_pkey" PRIMARY KEY ("record_id", "record_namespace", "grantee_kind", "grantee");

-- AlterTable
ALTER TABLE "record_numbers" DROP CONSTRAINT "record_numbers_pkey",
ADD COLUMN     "record_namespace" TEXT NOT NULL DEFAULT '',
ADD CONSTRAINT "record_numbers_pkey" PRIMARY KEY ("record_id", "record_namespace", "path");

-- Backfill (written by hand): the records stored before this migration are in their owner's
-- tenant's namespace ('' without a tenant), and so are their keys, grants and numbers. The
-- defaults above only let the columns be added to tables that hold rows.
UPDATE "records" SET "namespace" = COALESCE("tenant_id", '');
UPDATE "idempotency_keys" k SET "record_namespace" = r."namespace" FROM "records" r WHERE r."id" = k."record_id";
UPDATE "record_grants" g SET "record_namespace" = r."namespace" FROM "records" r WHERE r."id" = g."record_id";
UPDATE "record_numbers" n SET "record_namespace" = r."namespace" FROM "records" r WHERE r."id" = n."record_id";
ALTER TABLE "records" ALTER COLUMN "namespace" DROP DEFAULT;
ALTER TABLE "idempotency_keys" ALTER COLUMN "record_namespace" DROP DEFAULT;
ALTER TABLE "record_grants" ALTER COLUMN "record_namespace" DROP DEFAULT;
ALTER TABLE "record_numbers" ALTER COLUMN "record_namespace" DROP DEFAULT;

-- CreateIndex
CREATE INDEX "records_model_version_created_at_id_namespace_idx" ON "records"("model", "version", "created_at", "id", "namespace");

-- CreateIndex
CREATE INDEX "records_created_at_id_namespace_idx" ON "records"("created_at", "id", "namespace");

-- CreateIndex
CREATE INDEX "idempotency_keys_record_id_record_namespace_idx" ON "idempotency_keys"("record_id", "record_namespace");

-- AddForeignKey
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_record_id_record_namespace_fkey" FOREIGN KEY ("record_id", "record_namespace") REFERENCES "records"("id", "namespace") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "record_grants" ADD CONSTRAINT "record_grants_record_id_record_namespace_fkey" FOREIGN KEY ("record_id", "record_namespace") REFERENCES "records"("id", "namespace") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "record_numbers" ADD CONSTRAINT "record_numbers_record_id_record_namespace_fkey" FOREIGN KEY ("record_id", "record_namespace") REFERENCES "records"("id", "namespace") ON DELETE CASCADE ON UPDATE CASCADE;
