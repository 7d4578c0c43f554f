// BEAM 500K (knowledge updates, contradictions and the other abilities) through `awhm eval --format beam`,
// beside a plain BM25 over the raw turns. Zero LLM calls. Reads ../shared/data/beam/500K beside the repo in place
// (AWHM_BEAM_DIR overrides; never copied). BEAM_CHATS=n replays only the first n chats; BEAM_REAL=1 adds
// the real model (AWHM_MODEL_DIR or ./.cache/models/all-MiniLM-L6-v2), which embeds every message once;
// BEAM_EMBED_CACHE=<file> keeps its vectors between runs (development only).
import { existsSync } from "node:fs"
import * as os from "node:os"
import { join, relative } from "node:path"
import { Effect, Layer } from "effect"
import type { AwhmConfigShape } from "../src/domain/Config.js"
import { type BeamReport, runBeamEval } from "../src/eval/beam.js"
import { loadConfig } from "../src/layers/ConfigLive.js"
import { embedderLayer } from "../src/layers/Main.js"
import { Embedder } from "../src/services/Embedder.js"
import { memoizedEmbedder } from "./embedCache.js"

const BEAM = process.env["AWHM_BEAM_DIR"] ?? `${process.cwd()}/../shared/data/beam/500K`
const CHATS = process.env["BEAM_CHATS"] !== undefined ? Number(process.env["BEAM_CHATS"]) : undefined
const modelDir = () => process.env["AWHM_MODEL_DIR"] ?? join(process.cwd(), ".cache", "models", "all-MiniLM-L6-v2")

const config = (embedder: "mock" | "transformers"): Promise<AwhmConfigShape> =>
  Effect.runPromise(
    loadConfig({ data_dir: join(os.tmpdir(), "awhm-bench-beam-no-config"), embedder, ...(embedder === "transformers" ? { model_dir: modelDir() } : {}) }, {})
  )

const run1 = async (embedder: "mock" | "transformers", lexicalOnly: boolean): Promise<BeamReport> => {
  const c = await config(embedder)
  const saves: Array<() => void> = []
  const cacheFile = embedder === "transformers" ? process.env["BEAM_EMBED_CACHE"] : undefined
  const cached = Layer.effect(
    Embedder,
    Effect.map(Embedder, (inner) => {
      const { embedder: e, save } = memoizedEmbedder(inner, cacheFile)
      saves.push(save)
      return e
    })
  ).pipe(Layer.provide(embedderLayer(c)))
  const layer = cacheFile === undefined ? embedderLayer(c) : cached
  const { report } = await Effect.runPromise(
    runBeamEval(BEAM, c, { k: 10, lexicalOnly, ...(CHATS !== undefined ? { limit: CHATS } : {}) }).pipe(Effect.provide(layer))
  )
  if (cacheFile !== undefined) for (const save of saves) save()
  return report
}

const f = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(3))

const table = (name: string, r: BeamReport): Array<string> => [
  `${name}: ${r.chats} chats, ${r.messages} messages, ${r.questions} questions, ${r.nodes} nodes, ingest ${r.ingest_seconds.toFixed(0)} s, ` +
    `query p50 ${r.latency_ms.p50.toFixed(1)} ms / p95 ${r.latency_ms.p95.toFixed(1)} ms, Stage 1 supersessions ${r.supersessions.count}` +
      ` (knowledge-update pairs among them: ${r.supersessions.update_pairs_superseded} of ${r.supersessions.update_pairs}).`,
  "",
  "| ability | n | @5 | @10 | MRR | stale-first | both@10 | BM25 @5 | BM25 @10 | BM25 MRR | BM25 stale-first | BM25 both@10 |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ...Object.entries(r.abilities).map(([a, x]) => {
    const b = r.anchor[a]!
    return `| ${a} | ${x.questions} | ${f(x.target_at_5)} | ${f(x.target_at_10)} | ${f(x.mrr)} | ${f(x.stale_first_rate)} | ${f(x.both_at_10)} | ${f(b.target_at_5)} | ${f(b.target_at_10)} | ${f(b.mrr)} | ${f(b.stale_first_rate)} | ${f(b.both_at_10)} |`
  }),
  ""
]

export async function run(): Promise<string> {
  const lines = [
    "## BEAM (knowledge updates and contradictions)",
    "",
    "BEAM's 500K chats (`awhm eval --format beam`, data README's protocol): each chat replayed into a fresh store",
    "(one session per batch, message times from the batch's date one minute apart, Stage 1 after each batch), every",
    "usable probing question asked with k = 10. Target = the updated turn (knowledge_update), the later statement",
    "(contradiction_resolution), any source turn otherwise; stale-first = the stale turn ranks above the target or is",
    "in the top 10 without it. Anchor: plain BM25 over every raw message. Zero LLM calls.",
    ""
  ]
  const rows: Array<[string, "mock" | "transformers", boolean]> = [["mock embedder, lexical-only queries", "mock", true]]
  if (process.env["BEAM_REAL"] === "1" && existsSync(join(modelDir(), "onnx", "model.onnx"))) rows.push(["real model (all-MiniLM-L6-v2)", "transformers", false])
  let first: BeamReport | null = null
  for (const [name, embedder, lexical] of rows) {
    const r = await run1(embedder, lexical)
    first ??= r
    lines.push(...table(name, r))
  }
  if (!rows.some((r) => r[1] === "transformers")) lines.push("_Real model not run: set BEAM_REAL=1 (it embeds all 38k messages once)._", "")
  lines.push(`Reproduce: \`node scripts/bench.mjs beam\`; one-off: \`awhm eval --format beam --corpus ${relative(process.cwd(), BEAM)} [--limit N] [--lexical-only]\`.`)
  const ku = first!.abilities["knowledge_update"]
  if (ku !== undefined) lines.push("", `<!-- figure: beam_stale_first = ${f(ku.stale_first_rate)} -->`)
  return lines.join("\n")
}
