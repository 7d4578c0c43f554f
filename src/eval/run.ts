import { Effect } from "effect"
import { loadConfig } from "../layers/ConfigLive.js"
import { embedderLayer } from "../layers/Main.js"
import { runBuiltin } from "./builtin.js"
import { type Corpus, loadNativeCorpus } from "./corpus.js"
import type { CorpusError } from "./errors.js"
import { loadLongMemEval } from "./longmemeval.js"
import { runBeamEval } from "./beam.js"
import { runLocomoEval } from "./locomo.js"
import { runReplay } from "./replay.js"
import { summarizeBuiltin, summarizeReplay } from "./report.js"

export type EvalFormat = "native" | "longmemeval" | "locomo" | "beam"

export interface EvalRequest {
  /** Configuration flags (snake_case), as the other commands take them. */
  readonly flags: Record<string, string>
  /** A corpus file, or null for the built-in benchmark. */
  readonly corpus: string | null
  readonly format: EvalFormat
  readonly k: number
  readonly limit?: number
  readonly sessionScope: boolean
  /** Native and LongMemEval replays: search the raw log too (this project's default retrieval). */
  readonly rawLog?: boolean
  /** BEAM replay: questions asked without embeddings. */
  readonly lexicalOnly?: boolean
  readonly env?: NodeJS.ProcessEnv
}

/** A progress line on stderr, only for a person watching a terminal (never in pipes or tests). */
export const terminalProgress = (label: string, unit: string) => {
  if (!process.stderr.isTTY) return { update: undefined, done: () => {} }
  let shown = false
  return {
    update: (done: number, total: number) => {
      shown = true
      process.stderr.write(`\r${label}: ${done}/${total} ${unit}`)
    },
    done: () => {
      if (shown) process.stderr.write("\n")
    }
  }
}

const loadCorpus = (file: string, format: "native" | "longmemeval", limit: number | undefined): Effect.Effect<Corpus, CorpusError> =>
  format === "longmemeval" ? loadLongMemEval(file, limit) : loadNativeCorpus(file)

/**
 * `awhm eval`: the built-in benchmark (mock embeddings unless AWHM_EMBEDDER is set) or a corpus replay
 * with the configured embedder. Returns the report object and its human summary.
 */
export const runEval = Effect.fn("runEval")(function* (request: EvalRequest) {
  const env = request.env ?? process.env
  const explicitEmbedder = env.AWHM_EMBEDDER !== undefined || env.AWHM_MOCK_EMBEDDINGS !== undefined
  const loaded = yield* loadConfig(request.flags, env)
  if (request.corpus === null) {
    const config = explicitEmbedder ? loaded : { ...loaded, embedder: "mock" as const }
    const report = yield* runBuiltin(config, request.k).pipe(Effect.provide(embedderLayer(config)))
    return { report, summary: summarizeBuiltin(report) }
  }
  // The reference's replay measured the graph and buffer with raw-log search off (comparable figures);
  // --raw-log or an explicit cold_start_session_count measures the retrieval users get.
  const coldStart =
    request.rawLog === true ? null : env.AWHM_COLD_START_SESSION_COUNT !== undefined ? loaded.coldStartSessionCount : 0
  const progress = terminalProgress(
    "awhm eval",
    request.format === "locomo" ? "conversations" : request.format === "beam" ? "chats" : "questions"
  )
  if (request.format === "beam") {
    return yield* runBeamEval(request.corpus, loaded, {
      k: request.k,
      ...(request.limit !== undefined ? { limit: request.limit } : {}),
      ...(request.lexicalOnly === true ? { lexicalOnly: true } : {}),
      ...(progress.update !== undefined ? { onProgress: progress.update } : {})
    }).pipe(Effect.provide(embedderLayer(loaded)), Effect.ensuring(Effect.sync(progress.done)))
  }
  if (request.format === "locomo") {
    const { report, summary } = yield* runLocomoEval(request.corpus, loaded, {
      k: request.k,
      ...(request.limit !== undefined ? { limit: request.limit } : {}),
      ...(progress.update !== undefined ? { onProgress: progress.update } : {})
    }).pipe(Effect.provide(embedderLayer(loaded)), Effect.ensuring(Effect.sync(progress.done)))
    return { report, summary }
  }
  const format = request.format
  const corpus = yield* loadCorpus(request.corpus, format, request.limit)
  const report = yield* runReplay(corpus, loaded, {
    k: request.k,
    sessionScope: request.sessionScope,
    coldStartSessionCount: coldStart,
    format,
    // LongMemEval's limit counts instances and is applied by the loader.
    ...(format === "native" && request.limit !== undefined ? { limit: request.limit } : {}),
    ...(progress.update !== undefined ? { onProgress: progress.update } : {})
  }).pipe(Effect.provide(embedderLayer(loaded)), Effect.ensuring(Effect.sync(progress.done)))
  return { report, summary: summarizeReplay(report) }
})
