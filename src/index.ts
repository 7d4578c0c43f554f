// The library face of awhm. Effect apps take the services, programs and layers; plain TypeScript takes
// AwhmSession (a Promise API over the same programs).

// Domain: schemas and typed errors
export * from "./domain/BufferEntry.js"
export * from "./domain/Candidate.js"
export * from "./domain/Config.js"
export * from "./domain/errors.js"
export * from "./domain/Message.js"
export * from "./domain/Node.js"
export * from "./domain/Result.js"
export { Stage2ProposalBatch } from "./domain/Stage2Proposal.js"

// Services (tags and shapes)
export * from "./services/AppConfig.js"
export * from "./services/Embedder.js"
export * from "./services/GraphStore.js"
export * from "./services/RawLog.js"
export * from "./services/Retriever.js"
export * from "./services/SessionBuffer.js"
export * from "./services/Stage2Client.js"

// Programs
export { consolidatePending, consolidateSession, type ConsolidateOptions, type ConsolidationReport } from "./programs/consolidate.js"
export { hardDelete, type DeletionResult, type HardDeleteOptions } from "./programs/hardDelete.js"
export { logMessage } from "./programs/logMessage.js"
export { retrieve } from "./programs/retrieve.js"
export { makeMemorySession, type MemorySession } from "./programs/session.js"
export { createSnapshot, listSnapshots, restoreSnapshot } from "./programs/snapshot.js"
export { runReplay as replay, type ReplayOptions } from "./eval/replay.js"
export { runStage2 } from "./programs/stage2.js"

// Layers
export { AwhmMemory } from "./layers/AwhmMemory.js"
export { ConfigFromValues, ConfigLive, loadConfig } from "./layers/ConfigLive.js"
export { EmbedderMock } from "./layers/EmbedderMock.js"
export { EmbedderNone } from "./layers/EmbedderNone.js"
export { EmbedderTransformers } from "./layers/EmbedderTransformers.js"
export { GraphStoreJson } from "./layers/GraphStoreJson.js"
export { GraphStoreMemory } from "./layers/GraphStoreMemory.js"
export { GraphStoreSqlite } from "./layers/GraphStoreSqlite.js"
export { AwhmLive, MainLive, type AwhmLayers, type AwhmServices } from "./layers/Main.js"
export { RawLogLive } from "./layers/RawLogLive.js"
export { RawLogMemory } from "./layers/RawLogMemory.js"
export { RetrieverLive } from "./layers/RetrieverLive.js"
export { SessionBufferLive } from "./layers/SessionBufferLive.js"
export { SessionBufferMemory } from "./layers/SessionBufferMemory.js"
export { Stage2Anthropic } from "./layers/Stage2Anthropic.js"
export { Stage2ClaudeCode } from "./layers/Stage2ClaudeCode.js"
export { Stage2Mock } from "./layers/Stage2Mock.js"

// Plain TypeScript
export { AwhmSession, type QueryOptions, type StartOptions } from "./api/AwhmSession.js"
