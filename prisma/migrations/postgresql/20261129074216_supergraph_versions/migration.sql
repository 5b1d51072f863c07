-- CreateTable
CREATE TABLE "supergraph_versions" (
    "id" SERIAL NOT NULL,
    "supergraph_sdl" TEXT NOT NULL,
    "supergraph_hash" TEXT NOT NULL,
    "subgraphs" TEXT NOT NULL,
    "subgraph" TEXT,
    "changelog" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "commit" TEXT,
    "forced_reason" TEXT,
    "rollback_of" INTEGER,
    "created_ms" BIGINT NOT NULL,

    CONSTRAINT "supergraph_versions_pkey" PRIMARY KEY ("id")
);
