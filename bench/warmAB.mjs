#!/usr/bin/env node
// Warm queries A/B: two builds' library bundles (dist/index.mjs), each in its own long-lived process on its own
// copy of one data dir, asked the same lexical LoCoMo questions in interleaved rounds (A B, then B A, …), so
// other load on the machine falls on both alike. Per query: wall and CPU (process.cpuUsage, user+sys) around
// Retriever.retrieve(q, { lexicalOnly: true }), after one untimed round that opens the stores and the indexes.
// Prints per build p50 / p95 wall and CPU, the costliest questions, and whether both builds returned the same
// results (every field in order; scores to 1e-4) for every question.
//
// Run from the repo root (the bundles import effect from node_modules):
//   cp dist/index.mjs .tmp/before/index.mjs   # at the old commit, after npm run build
//   BEFORE_LIB=.tmp/before/index.mjs node bench/warmAB.mjs DATA_DIR [ROUNDS]
// AFTER_LIB (default dist/index.mjs); WARM_AB_QUERIES (default 40 per round: every ~50th LoCoMo question, a new
// set each round); WARM_AB_LIST=1 lists every question's CPU and wall, not only the 6 costliest; WARM_AB_DUMP=<prefix>
// writes each build's results to <prefix>.<label>.json; WARM_AB_COPY=0 uses DATA_DIR in place (one build only: each
// build's reinforcement writes would invalidate the other's cache). Both builds reinforce what they return, flushed
// every 5 s, so a few results may differ in order or score between two processes of one build too (a flush moves the
// access-count p90): WARM_AB_REINFORCE=0 turns reinforcement off in both, for a check that the builds answer alike.
import { fork, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

const LOCOMO = process.env.AWHM_LOCOMO_FILE ?? `${process.cwd()}/../shared/data/locomo/locomo10.json`

/**
 * Every ~n-th LoCoMo question (all categories, all conversations), n chosen to give `count`, from the
 * `offset`-th on: each round asks questions no round asked before (a cache of one query's work must not flatter).
 */
const questions = (count, offset) => {
  const all = JSON.parse(fs.readFileSync(LOCOMO, "utf8")).flatMap((c) => c.qa.map((q) => String(q.question)))
  const step = Math.max(1, Math.floor(all.length / count))
  return Array.from({ length: Math.min(count, all.length) }, (_, i) => all[(i * step + offset) % all.length])
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(0.95 * xs.length))]

/** What two builds must agree on: the results in order, every field; scores to 1e-4 (strength moves with the clock). */
const signature = (results) => JSON.stringify(results)
const SCORE_TOLERANCE = 1e-4
const alike = (a, b) => {
  const x = JSON.parse(a)
  const y = JSON.parse(b)
  return (
    x.length === y.length &&
    x.every((r, i) => Math.abs(r.score - y[i].score) <= SCORE_TOLERANCE && JSON.stringify({ ...r, score: 0 }) === JSON.stringify({ ...y[i], score: 0 }))
  )
}

// ---- worker: one build's library in this process -------------------------------------------------------
async function worker(lib, dataDir) {
  const awhm = await import(pathToFileURL(path.resolve(lib)).href)
  const { Effect, ManagedRuntime } = await import("effect")
  const config = await Effect.runPromise(awhm.loadConfig({ data_dir: dataDir, embedder: "none" }, {}))
  const runtime = ManagedRuntime.make(awhm.AwhmLive(config))
  const retriever = await runtime.runPromise(awhm.Retriever)
  if (process.env.WARM_AB_REINFORCE === "0") {
    // Results then depend on the question and the data only: a check that two builds answer alike.
    const store = await runtime.runPromise(awhm.GraphStore)
    store.reinforce = () => Effect.void
  }
  const ask = (q) => runtime.runPromise(retriever.retrieve(q, { lexicalOnly: true }))
  process.on("message", async (msg) => {
    if (msg.type === "stop") {
      await runtime.dispose()
      process.exit(0)
    }
    const out = []
    for (const q of msg.questions) {
      const c = process.cpuUsage()
      const t = performance.now()
      const results = await ask(q)
      const wall = performance.now() - t
      const d = process.cpuUsage(c)
      out.push({ wall, cpu: (d.user + d.system) / 1000, sig: msg.signatures ? signature(results) : null })
    }
    process.send({ type: "round", out })
  })
  process.send({ type: "ready" })
}

// ---- driver ---------------------------------------------------------------------------------------------
async function main() {
  const [dataDir, roundsArg] = process.argv.slice(2)
  if (!dataDir) throw new Error("usage: BEFORE_LIB=.tmp/before/index.mjs node bench/warmAB.mjs DATA_DIR [ROUNDS]")
  const rounds = Number(roundsArg ?? 5)
  const perRound = Number(process.env.WARM_AB_QUERIES ?? 40)
  const qs = Array.from({ length: rounds + 1 }, (_, r) => questions(perRound, r))
  const libs = [["after", process.env.AFTER_LIB ?? "dist/index.mjs"], ...(process.env.BEFORE_LIB ? [["before", process.env.BEFORE_LIB]] : [])]
  const copy = process.env.WARM_AB_COPY !== "0"
  const tmp = copy ? fs.mkdtempSync(path.join(os.tmpdir(), "awhm-warmab-")) : null
  const builds = []
  try {
    for (const [label, lib] of libs) {
      let dir = dataDir
      if (tmp !== null) {
        dir = path.join(tmp, label)
        const r = spawnSync("cp", ["-a", fs.realpathSync(dataDir), dir])
        if (r.status !== 0) throw new Error(`cp failed: ${r.stderr}`)
      }
      const child = fork(fileURLPath(), ["--worker", lib, dir], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
      const inbox = []
      let wake = null
      child.on("message", (m) => {
        inbox.push(m)
        wake?.()
      })
      child.on("exit", (code) => {
        if (code !== 0) inbox.push({ type: "died", code })
        wake?.()
      })
      const next = async () => {
        while (inbox.length === 0) await new Promise((r) => (wake = r))
        wake = null
        const m = inbox.shift()
        if (m.type === "died") throw new Error(`${label} worker exited with ${m.code}`)
        return m
      }
      const t = performance.now()
      await next() // ready: stores open
      builds.push({ label, lib, child, next, opened: performance.now() - t, walls: [], cpus: [], asked: [], sigs: [] })
    }
    const round = async (b, r) => {
      b.child.send({ type: "round", questions: qs[r], signatures: true })
      const { out } = await b.next()
      b.sigs.push(...out.map((o) => o.sig))
      if (r === 0) return
      out.forEach((o, i) => {
        b.walls.push(o.wall)
        b.cpus.push(o.cpu)
        b.asked.push({ q: qs[r][i], wall: o.wall, cpu: o.cpu })
      })
    }
    // Round 0 untimed: the first query builds or restores the raw-log index.
    for (const b of builds) await round(b, 0)
    for (let r = 1; r <= rounds; r++) for (const b of r % 2 === 1 ? builds : [...builds].reverse()) await round(b, r)
    const f = (x) => x.toFixed(1)
    console.log(`warm lexical queries, ${rounds} interleaved rounds of ${perRound} LoCoMo questions (new ones each round), ${dataDir}; load ${os.loadavg()[0].toFixed(1)}`)
    for (const b of builds) {
      console.log(
        `${b.label.padEnd(6)} wall p50 ${f(median(b.walls))} p95 ${f(p95(b.walls))} mean ${f(b.walls.reduce((a, x) => a + x, 0) / b.walls.length)} ms | ` +
          `CPU p50 ${f(median(b.cpus))} p95 ${f(p95(b.cpus))} ms | opened in ${f(b.opened)} ms (${b.lib})`
      )
    }
    for (const b of builds) {
      const byCpu = [...b.asked].sort((x, y) => y.cpu - x.cpu)
      const shown = process.env.WARM_AB_LIST === "1" ? byCpu : byCpu.slice(0, 6)
      console.log(`${b.label} most CPU (ms CPU / wall): ${shown.map((a) => `${f(a.cpu)}/${f(a.wall)} ${JSON.stringify(a.q)}`).join("; ")}`)
    }
    if (builds.length === 2) {
      const all = qs.flat()
      const diff = all.filter((_, i) => !alike(builds[0].sigs[i], builds[1].sigs[i]))
      console.log(diff.length === 0 ? `results identical for all ${all.length} questions` : `RESULTS DIFFER for ${diff.length}: ${diff.map((q) => JSON.stringify(q)).join("; ")}`)
      if (diff.length > 0) process.exitCode = 1
      if (process.env.WARM_AB_DUMP) for (const b of builds) fs.writeFileSync(`${process.env.WARM_AB_DUMP}.${b.label}.json`, b.sigs.join("\n") + "\n")
    }
  } finally {
    for (const b of builds) b.child.send({ type: "stop" })
    await Promise.all(builds.map((b) => new Promise((r) => (b.child.exitCode !== null ? r() : b.child.on("exit", r)))))
    if (tmp !== null) fs.rmSync(tmp, { recursive: true, force: true })
  }
}

function fileURLPath() {
  return new URL(import.meta.url).pathname
}

if (process.argv[2] === "--worker") await worker(process.argv[3], process.argv[4])
else await main()
