// The PostgreSQL layers in one module, which Main.ts loads only for storage_backend postgres: the driver
// would otherwise cost every hook and command its start-up time.
export { ConsolidationProgressPostgres } from "./ConsolidationProgressPostgres.js"
export { GraphStorePostgres } from "./GraphStorePostgres.js"
export { PostgresDatabaseLive } from "./postgres/PostgresDatabase.js"
export { RawLogPostgres } from "./RawLogPostgres.js"
export { DeletionRecordsPostgres } from "./DeletionRecordsPostgres.js"
