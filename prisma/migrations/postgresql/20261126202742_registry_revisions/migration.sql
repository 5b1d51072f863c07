-- CreateTable
CREATE TABLE "registry_revisions" (
    "revision" TEXT NOT NULL,
    "announced_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "registry_revisions_pkey" PRIMARY KEY ("revision")
);

-- CreateIndex
CREATE INDEX "registry_revisions_announced_at_idx" ON "registry_revisions"("announced_at");
