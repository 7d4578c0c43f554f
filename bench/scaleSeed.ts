// Builds a data dir of N memories fast: N graph nodes and N raw-log messages of LoCoMo text, 384-dim unit
// vectors computed here (not by the model), bulk inserts, logs written as files, progress marked done
// with the logs' settled marks (as consolidation leaves them), the message vectors stored where the
// retriever keeps them. A first query then builds the raw-log index.
import * as fs from "node:fs"
import { Effect } from "effect"
import { makeNode, type Edge, type MemoryNode } from "../src/domain/Node.js"
import { DEFAULT_MODEL_ID } from "../src/layers/EmbedderTransformers.js"
import { openGraphStoreFile } from "../src/layers/graph/openStore.js"
import { writeMessageVectors } from "../src/layers/retriever/persist.js"
import { refKey } from "../src/layers/retriever/rank.js"
import { logStamp, settledMark, writeConsolidatedLogs } from "../src/store/consolidatedLogs.js"
import { dataPaths } from "../src/store/paths.js"
import { renderProgress, type SessionProgress } from "../src/store/progress.js"
import { unitVectors } from "./stats.js"

const DIM = 384
const PER_SESSION = 20
const LOCOMO = process.env["AWHM_LOCOMO_FILE"] ?? `${process.cwd()}/../shared/data/locomo/locomo10.json`

interface Turn {
  readonly speaker: string
  readonly text: string
}

const turns = (): Array<Turn> => {
  const data = JSON.parse(fs.readFileSync(process.env["LOCOMO_FILE"] ?? LOCOMO, "utf8")) as Array<{
    conversation: Record<string, unknown>
  }>
  const out: Array<Turn> = []
  for (const c of data) {
    for (const v of Object.values(c.conversation)) {
      if (!Array.isArray(v)) continue
      for (const t of v as Array<{ speaker?: string; text?: string }>) {
        if (typeof t.text === "string" && t.text.trim() !== "") out.push({ speaker: t.speaker ?? "someone", text: t.text })
      }
    }
  }
  return out
}

const T0 = Date.parse("2025-01-01T09:00:00.000Z")
const iso = (ms: number) => new Date(ms).toISOString()
const sessionOf = (i: number) => `scale-${Math.floor(i / PER_SESSION)}`

/** Seeds `dataDir` (SQLite graph) with n nodes and n messages. */
export const seedDataDir = async (dataDir: string, n: number): Promise<void> => {
  const all = turns()
  const unit = unitVectors(42)
  const vector = () => unit(DIM)
  const paths = dataPaths(dataDir)
  fs.mkdirSync(paths.logs, { recursive: true, mode: 0o700 })
  fs.mkdirSync(paths.meta, { recursive: true, mode: 0o700 })
  const messageVectors: Array<readonly [string, Float32Array]> = []
  const progress = new Map<string, SessionProgress>()
  const settled = new Map<string, string>()
  let lines: Array<string> = []
  const CHUNK = 5_000
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* openGraphStoreFile("sqlite", dataDir)
        for (let start = 0; start < n; start += CHUNK) {
          const nodes: Array<MemoryNode> = []
          const edges: Array<Edge> = []
          for (let i = start; i < Math.min(n, start + CHUNK); i++) {
            const turn = all[i % all.length]!
            const sid = sessionOf(i)
            const at = iso(T0 + i * 60_000)
            // A number keeps repeated LoCoMo lines distinct memories.
            const content = i < all.length ? turn.text : `${turn.text} (${Math.floor(i / all.length)})`
            nodes.push(
              makeNode({
                id: `m${i}`,
                type: i % 3 === 0 ? "episodic" : "semantic",
                content,
                createdAt: at,
                lastAccessed: at,
                embedding: vector(),
                embedModel: DEFAULT_MODEL_ID,
                sourceSessions: [sid],
                sourceRefs: [{ sessionId: sid, messageIndex: i % PER_SESSION }],
                canonicalKey: i % 4 === 0 ? `fact:${turn.speaker.toLowerCase()} ${i % 997}` : null,
                accessCount: 1 + (i % 7)
              })
            )
            if (i % PER_SESSION !== 0) edges.push({ source: `m${i - 1}`, target: `m${i}`, type: "temporal", weight: 1, createdAt: at })
            const message = { timestamp: at, session_id: sid, role: i % 2 === 0 ? "user" : "assistant", content, metadata: { speaker: turn.speaker }, index: i % PER_SESSION }
            lines.push(JSON.stringify(message))
            messageVectors.push([refKey(sid, i % PER_SESSION), vector()])
            if (i % PER_SESSION === PER_SESSION - 1 || i === n - 1) {
              fs.writeFileSync(paths.logFile(sid), lines.join("\n") + "\n", { mode: 0o600 })
              lines = []
              progress.set(sid, { lastMsgIndex: i % PER_SESSION, updatedAt: at })
              settled.set(sid, settledMark(logStamp(fs.statSync(paths.logFile(sid))), i % PER_SESSION))
            }
          }
          yield* store.commit({ upsertNodes: nodes, addEdges: edges })
        }
      })
    )
  )
  fs.writeFileSync(paths.progress, renderProgress(progress), { mode: 0o600 })
  writeConsolidatedLogs(paths.consolidatedLogs, settled)
  writeMessageVectors({ dataDir, modelId: DEFAULT_MODEL_ID, stamp: 0 }, messageVectors)
}
