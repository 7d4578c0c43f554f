import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeNode } from "../../src/domain/Node.js"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { MOCK_MODEL_ID, mockEmbedding } from "../../src/layers/EmbedderMock.js"
import { GraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { makeRetrieverLayer } from "../../src/layers/RetrieverLive.js"
import { SessionBufferLive } from "../../src/layers/SessionBufferLive.js"
import { storedVectors } from "../../src/layers/retriever/persist.js"
import { Retriever } from "../../src/services/Retriever.js"
import { dataPaths } from "../../src/store/paths.js"
import { BIN, listFiles, makeTempDir, ROOT, runAwhm } from "../support/cli.js"
import { graphOf, seedGraph } from "../support/graphSeed.js"
import { countingEmbedder } from "../retrieval/support.js"

// Queries racing a delete, as real processes: afterwards no file holds the deleted text, and no stored
// vector is the deleted message's (the mock embedder is deterministic, so a guessed sentence's cosine of
// 1.0 would confirm what was said).

const TOPICS = ["the deploy pipeline", "the lunch order", "the quarterly report", "the garden hose", "the train schedule"]

/** Raw logs written straight to disk (the reference's JSONL): enough messages that a query's rebuild takes a while. */
const seedLogs = (dataDir: string, sessions: number, perSession: number) => {
  const paths = dataPaths(dataDir)
  fs.mkdirSync(paths.logs, { recursive: true })
  for (let s = 0; s < sessions; s++) {
    const lines = Array.from({ length: perSession }, (_, i) =>
      JSON.stringify({
        timestamp: `2026-02-0${1 + (s % 9)}T10:${String(i % 60).padStart(2, "0")}:00Z`,
        session_id: `filler-${s}`,
        role: i % 2 === 0 ? "user" : "assistant",
        content: `Note ${i} about ${TOPICS[(s + i) % TOPICS.length]}: item ${s * perSession + i} is fine`,
        metadata: {},
        index: i
      })
    )
    fs.writeFileSync(paths.logFile(`filler-${s}`), lines.join("\n") + "\n")
  }
}

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return dot / Math.sqrt(na * nb)
}

const holding = (dir: string, text: string) =>
  listFiles(dir).filter((f) => fs.readFileSync(path.join(dir, f)).includes(Buffer.from(text)))

const secretNode = (id: string, content: string, messageIndex: number) =>
  graphOf([
    makeNode({
      id,
      type: "semantic",
      content,
      createdAt: "2026-03-01T10:00:00.000Z",
      sourceSessions: ["secret"],
      sourceRefs: [{ sessionId: "secret", messageIndex }]
    })
  ])

describe("index writes racing a delete", () => {
  it("a query that read the stores before a delete does not save its index after it", async () => {
    const { dir, cleanup } = makeTempDir("awhm-index-race-")
    const secret = "I prefer the codename QUOKKAVELVET"
    try {
      seedLogs(dir, 2, 20)
      expect((await runAwhm(["log", "--session", "secret", "--role", "user", secret], { dataDir: dir })).code).toBe(0)
      await seedGraph(dir, secretNode("N", secret, 0))
      // The query's embedder runs the real `awhm delete` while the query holds what it read: the delete
      // lands between the query's reads and its index write, every time.
      let deleted: { status: number | null; stderr: string } | null = null
      const embedder = countingEmbedder({
        before: (texts) => {
          if (deleted === null && texts.includes(secret)) {
            const env = { ...process.env, AWHM_DATA_DIR: dir, AWHM_EMBEDDER: "mock", AWHM_HOOK_SERVER: "0" }
            const r = spawnSync(process.execPath, [BIN, "delete", "N"], { env, cwd: ROOT, encoding: "utf8" })
            deleted = { status: r.status, stderr: r.stderr }
          }
        }
      }).layer
      const layer = makeRetrieverLayer({ persist: true, warn: () => {} }).pipe(
        Layer.provideMerge(Layer.mergeAll(RawLogLive, SessionBufferLive, GraphStoreSqlite, embedder)),
        Layer.provideMerge(ConfigFromValues(dir))
      )
      const answered = await Effect.runPromise(
        Effect.flatMap(Retriever, (r) => r.retrieve("codename", { k: 3 })).pipe(Effect.provide(layer), Effect.scoped)
      )
      expect(deleted).toEqual({ status: 0, stderr: "" })
      // What it answered was read before the delete; what it left on disk must not hold it.
      expect(answered.map((r) => r.content)).toContain(secret)
      expect(holding(dir, "QUOKKAVELVET")).toEqual([])
      expect(holding(dir, "quokkavelvet")).toEqual([])
      expect(storedVectors(dir, MOCK_MODEL_ID).filter(([, v]) => cosine(v, mockEmbedding(secret)) > 0.9999)).toEqual([])
      // The next query rebuilds the index from the scrubbed stores, and keeps the rest.
      const next = await runAwhm(["query", "--json", "codename QUOKKAVELVET"], { dataDir: dir })
      expect(next.code).toBe(0)
      expect(next.stdout).not.toContain("QUOKKAVELVET")
      expect(holding(dir, "QUOKKAVELVET")).toEqual([])
      expect(storedVectors(dir, MOCK_MODEL_ID).length).toBe(40)
    } finally {
      cleanup()
    }
  })

  it("queries started around a delete leave no deleted text, tokens or vector under the data dir (2 rounds)", async () => {
    const { dir, cleanup } = makeTempDir("awhm-index-race-")
    try {
      seedLogs(dir, 4, 150)
      const warm = await runAwhm(["query", "deploy pipeline"], { dataDir: dir })
      expect(warm.code).toBe(0)
      const outcomes: Array<{ round: number; files: Array<string>; sameVector: number }> = []
      for (let round = 0; round < 2; round++) {
        const secret = `I prefer the codename QUOKKA${round}VELVET`
        const logged = await runAwhm(["log", "--session", "secret", "--role", "user", secret], { dataDir: dir })
        expect(logged.code).toBe(0)
        const index = JSON.parse(fs.readFileSync(dataPaths(dir).logFile("secret"), "utf8").trim().split("\n").at(-1)!).index as number
        // The secret is in the saved index (text, tokens, vector) before the delete starts.
        expect((await runAwhm(["query", "codename"], { dataDir: dir })).code).toBe(0)
        expect(storedVectors(dir, MOCK_MODEL_ID).some(([, v]) => cosine(v, mockEmbedding(secret)) > 0.9999)).toBe(true)
        await seedGraph(dir, secretNode(`N${round}`, secret, index))
        // The secret's log is read first (oldest), so a query holds it through all the rest of its work.
        const now = Date.now() / 1000
        for (let s = 0; s < 4; s++) fs.utimesSync(dataPaths(dir).logFile(`filler-${s}`), now + 5, now + 5)
        const later = (ms: number, args: ReadonlyArray<string>) =>
          new Promise((r) => setTimeout(r, ms)).then(() => runAwhm(args, { dataDir: dir }))
        const [deleted, ...queries] = await Promise.all([
          runAwhm(["delete", `N${round}`], { dataDir: dir }),
          ...[0, 200, 400].map((ms) => later(ms, ["query", round % 2 === 0 ? "codename velvet" : "deploy pipeline"]))
        ])
        expect([deleted.code, deleted.stderr]).toEqual([0, ""])
        for (const q of queries) expect(q.code).toBe(0)
        // And a query after the delete (rebuilding the index) brings nothing back.
        expect((await runAwhm(["query", "codename velvet"], { dataDir: dir })).code).toBe(0)
        const token = `quokka${round}velvet`
        outcomes.push({
          round,
          files: [...holding(dir, `QUOKKA${round}VELVET`), ...holding(dir, token)],
          sameVector: storedVectors(dir, MOCK_MODEL_ID).filter(([, v]) => cosine(v, mockEmbedding(secret)) > 0.9999).length
        })
      }
      expect(outcomes).toEqual(Array.from({ length: 2 }, (_, round) => ({ round, files: [], sameVector: 0 })))
      // The rest of the log is still indexed: a filler message is found.
      const filler = await runAwhm(["query", "--json", "quarterly report item 7"], { dataDir: dir })
      expect(filler.stdout).toContain("quarterly report")
    } finally {
      cleanup()
    }
  }, 600_000)
})
