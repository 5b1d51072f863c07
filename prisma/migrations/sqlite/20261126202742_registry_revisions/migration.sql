-- CreateTable
CREATE TABLE "registry_revisions" (
    "revision" TEXT NOT NULL PRIMARY KEY,
    "announced_at" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "registry_revisions_announced_at_idx" ON "registry_revisions"("announced_at");
