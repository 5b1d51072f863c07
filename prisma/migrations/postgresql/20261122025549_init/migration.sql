-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "records" (
    "id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_by_sub" TEXT NOT NULL,
    "tenant_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "record_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("scope","key")
);

-- CreateTable
CREATE TABLE "record_grants" (
    "record_id" TEXT NOT NULL,
    "grantee_kind" TEXT NOT NULL,
    "grantee" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "record_grants_pkey" PRIMARY KEY ("record_id","grantee_kind","grantee")
);

-- CreateIndex
CREATE INDEX "records_model_version_created_at_id_idx" ON "records"("model", "version", "created_at", "id");

-- CreateIndex
CREATE INDEX "records_created_at_id_idx" ON "records"("created_at", "id");

-- CreateIndex
CREATE INDEX "records_created_by_sub_tenant_id_idx" ON "records"("created_by_sub", "tenant_id");

-- CreateIndex
CREATE INDEX "records_payload_idx" ON "records" USING GIN ("payload" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "idempotency_keys_record_id_idx" ON "idempotency_keys"("record_id");

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

-- CreateIndex
CREATE INDEX "record_grants_grantee_kind_grantee_idx" ON "record_grants"("grantee_kind", "grantee");

-- AddForeignKey
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "records"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "record_grants" ADD CONSTRAINT "record_grants_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "records"("id") ON DELETE CASCADE ON UPDATE CASCADE;
