-- CreateTable
CREATE TABLE "usage_operations" (
    "hash" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT,
    "type" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "coordinates" TEXT NOT NULL,
    "first_seen_ms" BIGINT NOT NULL,
    "last_seen_ms" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "usage_counts" (
    "hash" TEXT NOT NULL,
    "client_name" TEXT NOT NULL,
    "client_version" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "inputs" TEXT NOT NULL,
    "requests" BIGINT NOT NULL,
    "last_seen_ms" BIGINT NOT NULL,

    PRIMARY KEY ("hash", "client_name", "client_version", "day", "inputs")
);

-- CreateIndex
CREATE INDEX "usage_operations_last_seen_ms_idx" ON "usage_operations"("last_seen_ms");

-- CreateIndex
CREATE INDEX "usage_counts_day_idx" ON "usage_counts"("day");
