import { Config, Option } from "effect"
import { validNamespace } from "./namespace.js"

/** spaCy-style labels that become entity nodes (the reference's `ner_labels`). */
export const DEFAULT_NER_LABELS = [
  "PERSON", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LANGUAGE", "NORP", "FAC", "LAW"
] as const

const num = (name: string, def: number, min = 0, max = Number.POSITIVE_INFINITY) =>
  Config.number(name).pipe(
    Config.validate({ message: max === Number.POSITIVE_INFINITY ? `must be a number >= ${min}` : `must be a number between ${min} and ${max}`, validation: (n) => Number.isFinite(n) && n >= min && n <= max }),
    Config.withDefault(def)
  )
const int = (name: string, def: number, min = 0) =>
  Config.integer(name).pipe(
    Config.validate({ message: `must be a whole number >= ${min}`, validation: (n) => n >= min }),
    Config.withDefault(def)
  )
const bool = (name: string, def: boolean) => Config.boolean(name).pipe(Config.withDefault(def))
const namespace = (name: string) =>
  Config.string(name).pipe(
    Config.validate({ message: "must be a namespace such as user:alice or team:payments (kind:name, no spaces or commas)", validation: validNamespace })
  )
const optString = (name: string) =>
  Config.option(Config.nonEmptyString(name)).pipe(Config.map(Option.getOrNull))

/**
 * Every configuration parameter, snake_case names as in the reference's table and the CLI contract.
 * Sources (highest first): flags, AWHM_<NAME> environment variables, <data-dir>/config.json, defaults.
 */
export const awhmConfig = Config.all({
  alpha: num("alpha", 0.3),
  beta: num("beta", 0.1),
  wRec: num("w_rec", 0.4),
  wFreq: num("w_freq", 0.6),
  retrievalProfile: Config.string("retrieval_profile").pipe(Config.withDefault("balanced")),
  wSemantic: num("w_semantic", 0.55),
  wLexical: num("w_lexical", 0.2),
  wStrength: num("w_strength", 0.15),
  wConfidence: num("w_confidence", 0.1),
  contradictionPenalty: num("contradiction_penalty", 0.35),
  includeHistoryByDefault: bool("include_history_by_default", false),
  traceRetrieval: bool("trace_retrieval", false),
  k: int("k", 10, 1),
  entityLinkThreshold: num("entity_link_threshold", 0.85, -1, 1),
  dedupThreshold: num("dedup_threshold", 0.92, -1, 1),
  bm25AnchorRatio: num("bm25_anchor_ratio", 0.5, 0, 1),
  embedThreshold: num("embed_threshold", 0.3, -1, 1),
  // 0.75 = w_semantic + w_lexical: the raw log is a source beside the graph ("does better" 11), its best line on
  // the scale of a graph memory's relevance (the reference's 0.5 made it a fallback; LoCoMo 0.61 -> 0.78).
  rawLogScoreScale: num("raw_log_score_scale", 0.75),
  neighborExpansion: bool("neighbor_expansion", true),
  neighborDecay: num("neighbor_decay", 0.6),
  wAssociation: num("w_association", 0.1),
  storageBackend: Config.literal("sqlite", "json", "postgres")("storage_backend").pipe(Config.withDefault("sqlite" as const)),
  /** The PostgreSQL server of `storage_backend: postgres`; redacted, so the password is never printed. */
  postgresUrl: Config.option(Config.redacted("postgres_url")).pipe(Config.map(Option.getOrNull)),
  /** The namespaces this client reads (`user:alice`, `team:payments`); the write namespace is always among them. */
  namespaces: Config.array(namespace("namespaces"), "namespaces").pipe(Config.withDefault([] as Array<string>)),
  /** The one namespace this client writes (default: the first of `namespaces`). */
  writeNamespace: Config.option(namespace("write_namespace")).pipe(Config.map(Option.getOrNull)),
  /** VACUUM the touched tables after a hard delete on PostgreSQL (needs the schema owner's role). */
  postgresVacuumOnDelete: bool("postgres_vacuum_on_delete", true),
  stage2Enabled: bool("stage2_enabled", false),
  stage2Client: Config.literal("claude-code", "anthropic")("stage2_client").pipe(
    Config.withDefault("claude-code" as const)
  ),
  stage2Model: optString("stage2_model"),
  stage2MaxMessages: int("stage2_max_messages", 60, 1),
  stage2MinConfidence: num("stage2_min_confidence", 0.5, 0, 1),
  stage2TimeoutSeconds: num("stage2_timeout_seconds", 180, 1),
  anthropicApiKey: Config.option(Config.redacted("anthropic_api_key")).pipe(Config.map(Option.getOrNull)),
  correctionWindowMessages: int("correction_window_messages", 3),
  nerLabels: Config.array(Config.string(), "ner_labels").pipe(
    Config.map((labels) => labels.map((l) => l.trim().toUpperCase())),
    Config.withDefault([...DEFAULT_NER_LABELS])
  ),
  bufferFlushInterval: num("buffer_flush_interval", 30, 0.001),
  annIndexType: Config.string("ann_index_type").pipe(Config.withDefault("none")),
  deleteSnapshotsOnHardDelete: bool("delete_snapshots_on_hard_delete", true),
  deleteSiblingsOnHardDelete: bool("delete_siblings_on_hard_delete", true),
  /** Raw-log search is on while there are fewer sessions than this; null means always (0 turns it off). */
  coldStartSessionCount: Config.option(
    Config.integer("cold_start_session_count").pipe(
      Config.validate({ message: "must be a whole number >= 0", validation: (n) => n >= 0 })
    )
  ).pipe(Config.map(Option.getOrNull)),
  embedder: Config.literal("transformers", "mock", "none")("embedder").pipe(Config.withDefault("transformers" as const)),
  modelId: Config.string("model_id").pipe(Config.withDefault("Xenova/all-MiniLM-L6-v2")),
  modelDir: optString("model_dir"),
  /** The longest message or query accepted, in characters: longer ones are refused (hooks store them cut). */
  maxMessageChars: int("max_message_chars", 100_000, 1),
  /** Upper bound on the characters the prompt hook injects as context. */
  hookContextChars: int("hook_context_chars", 2000, 1),
  /** "project": hooks tag messages with the payload's cwd and recall that project's memories plus global ones; "global": one shared memory. */
  scopeMode: Config.literal("project", "global")("scope_mode").pipe(Config.withDefault("project" as const)),
  bm25K1: num("bm25_k1", 1.5),
  bm25B: num("bm25_b", 0.75, 0, 1)
})

export type AwhmConfigValues = Config.Config.Success<typeof awhmConfig>

/** The resolved configuration plus where it lives. */
export interface AwhmConfigShape extends AwhmConfigValues {
  readonly dataDir: string
}
