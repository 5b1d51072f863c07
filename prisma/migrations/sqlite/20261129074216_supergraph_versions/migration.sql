-- CreateTable
CREATE TABLE "supergraph_versions" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "supergraph_sdl" TEXT NOT NULL,
    "supergraph_hash" TEXT NOT NULL,
    "subgraphs" TEXT NOT NULL,
    "subgraph" TEXT,
    "changelog" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "commit" TEXT,
    "forced_reason" TEXT,
    "rollback_of" INTEGER,
    "created_ms" BIGINT NOT NULL
);
