import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { vi } from "vitest"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { FULL_LISTING_MS, RetrieverState } from "../../src/layers/retriever/service.js"
import { packSections, StringTable, unpackSections } from "../../src/search/binaryImage.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { scopedTempDir } from "../support/cli.js"
import { countedRawLogRetriever } from "./support.js"

// One short-lived process (a CLI query, an in-process hook): a fresh retriever that keeps its index under
// the data dir, over a file raw log whose calls are counted.
const processLayer = (dir: string, calls: Array<string>) => countedRawLogRetriever(dir, calls, true)

/** A message written through awhm (its session named in the change journal). */
const append = (dir: string, sessionId: string, content: string) =>
  Effect.flatMap(RawLog, (log) => log.append({ sessionId, role: "user", content })).pipe(
    Effect.provide(RawLogLive.pipe(Layer.provide(ConfigFromValues(dir))))
  )

/** One process (`layer`) asked `query`: its answer and what it asked of the raw log (counted in `calls`). */
const ask = (layer: ReturnType<typeof processLayer>, calls: Array<string>, query: string) =>
  Effect.gen(function* () {
    calls.length = 0
    const results = yield* Effect.flatMap(Retriever, (r) => r.retrieve(query, { lexicalOnly: true, k: 1 }))
    return { answer: results.map((r) => r.content), calls: [...calls].sort() }
  }).pipe(Effect.provide(layer))

const line = (sessionId: string, index: number, content: string) =>
  JSON.stringify({ timestamp: "2026-01-01T00:00:00.000Z", session_id: sessionId, role: "user", content, metadata: {}, index }) + "\n"

/**
 * Sets the clock a minute ahead of the files' times until the test ends (and lets a test move it on): no log then
 * reads as written within the tick it was read in, which every listing would read again.
 */
const aheadOfFiles = () => {
  vi.useFakeTimers({ toFake: ["Date"] })
  vi.setSystemTime(Date.now() + 60_000)
}

/** The saved index's file identity and modification time (a rewrite replaces the file). */
const fileIdentity = (dir: string): string => {
  const st = fs.statSync(path.join(dir, "index", "rawlog.bin"))
  return `${st.ino} ${st.mtimeMs}`
}

describe("a whole process follows the raw log's change journal from where the saved index stood", () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it.scoped("lists every log only when the journal cannot say or the last listing is over five minutes old", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-whole-")
      aheadOfFiles()
      const other = (sessionId: string, content: string) => append(dir, sessionId, content)
      for (let i = 0; i < 210; i++) yield* other("s1", `standup note number ${i} about the sprint`)
      yield* other("s2", "the deploy freeze starts friday")
      const calls: Array<string> = []
      // Each call is one process: its answer and what it asked of the raw log.
      const run = (query: string) => ask(processLayer(dir, calls), calls, query)
      const listed = path.join(dir, "index", "rawlog-listed")

      // The first process lists and reads every log and saves the index (211 messages indexed).
      expect(yield* run("deploy freeze")).toEqual({ answer: ["the deploy freeze starts friday"], calls: ["list", "read s1", "read s2"] })
      const saved = fileIdentity(dir)
      // The next one reads nothing: the journal names no change since the saved index's mark.
      expect(yield* run("deploy freeze")).toEqual({ answer: ["the deploy freeze starts friday"], calls: [] })
      // A write through awhm: only that session is looked at, from where the saved index stood in its log.
      yield* other("s2", "the deploy freeze moved to monday")
      expect(yield* run("freeze monday")).toEqual({ answer: ["the deploy freeze moved to monday"], calls: ["read s2 since", "stat s2"] })
      // A new session's first message through awhm (its log created, the folder changed): the journal vouches
      // for the new log, so only the sessions it names since the saved index are looked at (s2's change too), no
      // listing of every log (a new Claude Code session's first prompt).
      yield* other("s4", "the parking garage closes at nine")
      expect(yield* run("parking garage")).toEqual({ answer: ["the parking garage closes at nine"], calls: ["read s2 since", "read s4", "stat s2", "stat s4"] })
      // A log another program created (no journal line): the logs folder changed, so every log is listed; the
      // index is not rewritten: a note beside it names the sessions it is behind on, and the next process reads
      // those (the two the journal had named, and the new one) and lists nothing.
      fs.writeFileSync(path.join(dir, "logs", "s3.jsonl"), line("s3", 0, "the office wifi password rotates monthly"))
      const third = yield* run("wifi password")
      expect(third.answer).toEqual(["the office wifi password rotates monthly"])
      expect(third.calls.filter((c) => c === "list" || c === "read s3")).toEqual(["list", "read s3"])
      expect(fileIdentity(dir)).toBe(saved)
      const behind = ["read s2 since", "read s3", "read s4", "stat s2", "stat s3", "stat s4"]
      expect(yield* run("wifi password")).toEqual({ answer: ["the office wifi password rotates monthly"], calls: behind })

      // Another program appends to a log in place (no journal line, the folder unchanged): seen at the
      // first listing after five minutes, which adds it to the note, not to a rewritten index.
      fs.appendFileSync(path.join(dir, "logs", "s1.jsonl"), line("s1", 210, "the guest wifi network is called lobby"))
      expect((yield* run("guest wifi lobby")).calls).toEqual(behind)
      vi.setSystemTime(Date.now() + FULL_LISTING_MS + 1000)
      const late = yield* run("guest wifi lobby")
      expect(late.answer).toEqual(["the guest wifi network is called lobby"])
      expect(late.calls.filter((c) => c === "list" || c.startsWith("read s1"))).toEqual(["list", "read s1 since"])
      expect(yield* run("guest wifi lobby")).toEqual({ answer: ["the guest wifi network is called lobby"], calls: ["read s1 since", ...behind, "stat s1"].sort() })
      // Five minutes on, a listing that finds nothing new says so beside the index instead of rewriting it.
      vi.setSystemTime(Date.now() + FULL_LISTING_MS + 1000)
      expect((yield* run("deploy freeze")).calls.filter((c) => c === "list")).toEqual(["list"])
      expect(JSON.parse(fs.readFileSync(listed, "utf8")).behind.sort()).toEqual(["s1", "s2", "s3", "s4"])
      expect(fileIdentity(dir)).toBe(saved)
      expect(yield* run("freeze monday")).toEqual({ answer: ["the deploy freeze moved to monday"], calls: ["read s1 since", ...behind, "stat s1"].sort() })
    })
  )

  it.scoped("a long-lived server's query leaves rewriting the index to saveDeferred, which writes all it indexed", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-deferred-")
      yield* Effect.flatMap(RawLog, (log) =>
        Effect.forEach(Array.from({ length: 210 }, (_, i) => i), (i) => log.append({ sessionId: "s1", role: "user", content: `retro note ${i} about the release train` }))
      ).pipe(Effect.provide(RawLogLive.pipe(Layer.provide(ConfigFromValues(dir)))))
      const calls: Array<string> = []
      const state = new RetrieverState(null, { k1: 1.5, b: 0.75 }) // the configuration's defaults
      state.deferSaves = true
      const view = path.join(dir, "index", "rawlog.bin")
      // 210 messages indexed: worth a save, but not while the hook waits for its answer.
      expect((yield* ask(countedRawLogRetriever(dir, calls, true, state), calls, "retro note 7")).answer).toEqual(["retro note 7 about the release train"])
      expect(fs.existsSync(view)).toBe(false)
      const warnings: Array<string> = []
      state.saveDeferred((line) => warnings.push(line))
      expect(warnings).toEqual([])
      expect(fs.existsSync(view)).toBe(true)
      // Nothing is left to save, and the next process finds every message in the saved copy.
      const saved = fs.statSync(view).mtimeMs
      state.saveDeferred((line) => warnings.push(line))
      expect(fs.statSync(view).mtimeMs).toBe(saved)
      expect(yield* ask(processLayer(dir, calls), calls, "retro note 7")).toEqual({ answer: ["retro note 7 about the release train"], calls: [] })
    })
  )
})

/** 300 sessions of one line each, written by another program, and a first process that lists and reads them all and saves the index. */
const ticketLogs = (dir: string) =>
  Effect.gen(function* () {
    aheadOfFiles()
    fs.mkdirSync(path.join(dir, "logs"), { recursive: true })
    const sids = Array.from({ length: 300 }, (_, i) => `t${i}`)
    for (const sid of sids) fs.writeFileSync(path.join(dir, "logs", `${sid}.jsonl`), line(sid, 0, `ticket ${sid} is about the printer`))
    const calls: Array<string> = []
    const run = (query: string) => ask(processLayer(dir, calls), calls, query)
    expect((yield* run("ticket t7")).calls.length).toBe(301) // list, then read each of 300 logs
    return { sids, calls, run }
  })

describe("a saved index that is current but for a few logs is not rewritten (at 1M messages a rewrite costs ~10 s)", () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  /** A data dir whose saved index holds 210 messages of s1 and one of s2, written by a first process. */
  const seeded = (dir: string, calls: Array<string>, write: (sid: string, i: number, content: string) => Effect.Effect<unknown, unknown>) =>
    Effect.gen(function* () {
      for (let i = 0; i < 210; i++) yield* write("s1", i, `standup note number ${i} about the sprint`)
      yield* write("s2", 0, "the deploy freeze starts friday")
      const first = yield* ask(processLayer(dir, calls), calls, "deploy freeze")
      expect(first).toEqual({ answer: ["the deploy freeze starts friday"], calls: ["list", "read s1", "read s2"] })
    })

  it.scoped("a copy of the data dir (times kept, as cp -a does) lists its logs once and keeps the saved index", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-copied-")
      aheadOfFiles()
      const calls: Array<string> = []
      yield* seeded(dir, calls, (sid, _, content) => append(dir, sid, content))
      const copy = path.join(yield* scopedTempDir("awhm-copy-"), "data")
      execFileSync("cp", ["-a", dir, copy]) // times to the nanosecond (fs.cpSync keeps milliseconds)
      const saved = fileIdentity(copy)
      const run = (query: string) => ask(processLayer(copy, calls), calls, query)
      // The copy's logs folder is another folder: the journal cannot vouch for it, so every log is listed (none changed).
      expect(yield* run("deploy freeze")).toEqual({ answer: ["the deploy freeze starts friday"], calls: ["list"] })
      expect(fileIdentity(copy)).toBe(saved)
      expect(yield* run("deploy freeze")).toEqual({ answer: ["the deploy freeze starts friday"], calls: [] })
      // So does a listing five minutes on.
      vi.setSystemTime(Date.now() + FULL_LISTING_MS + 1000)
      expect(yield* run("deploy freeze")).toEqual({ answer: ["the deploy freeze starts friday"], calls: ["list"] })
      expect(fileIdentity(copy)).toBe(saved)
      expect(yield* run("deploy freeze")).toEqual({ answer: ["the deploy freeze starts friday"], calls: [] })
    })
  )

  it.scoped("a data dir without a change journal: the first write through awhm starts one; its new session is read, the index kept", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-nojournal-")
      aheadOfFiles()
      const calls: Array<string> = []
      // Logs written by another program (a seeder, an import): no journal.
      yield* seeded(dir, calls, (sid, i, content) =>
        Effect.sync(() => {
          fs.mkdirSync(path.join(dir, "logs"), { recursive: true })
          fs.appendFileSync(path.join(dir, "logs", `${sid}.jsonl`), line(sid, i, content))
        })
      )
      expect(fs.existsSync(path.join(dir, "meta", "log-changes"))).toBe(false)
      const saved = fileIdentity(dir)
      const run = (query: string) => ask(processLayer(dir, calls), calls, query)
      // A prompt hook's first message of a new session: the journal is new, so every log is listed once.
      yield* append(dir, "u1", "where did the team offsite happen")
      expect(yield* run("team offsite")).toEqual({ answer: ["where did the team offsite happen"], calls: ["list", "read u1"] })
      expect(fileIdentity(dir)).toBe(saved)
      expect(yield* run("team offsite")).toEqual({ answer: ["where did the team offsite happen"], calls: ["read u1", "stat u1"] })
      yield* append(dir, "u1", "the offsite was in lisbon")
      expect(yield* run("offsite lisbon")).toEqual({ answer: ["the offsite was in lisbon"], calls: ["read u1", "stat u1"] })
      expect(fileIdentity(dir)).toBe(saved)
    })
  )

  it.scoped("a log another program appended to is seen at the next listing, which adds only its new lines", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-grown-")
      aheadOfFiles()
      const calls: Array<string> = []
      yield* seeded(dir, calls, (sid, _, content) => append(dir, sid, content))
      const saved = fileIdentity(dir)
      fs.appendFileSync(path.join(dir, "logs", "s1.jsonl"), line("s1", 210, "the guest wifi network is called lobby"))
      vi.setSystemTime(Date.now() + FULL_LISTING_MS + 1000)
      const state = new RetrieverState(null, { k1: 1.5, b: 0.75 }) // the configuration's defaults
      const listing = yield* ask(countedRawLogRetriever(dir, calls, true, state), calls, "guest wifi lobby")
      expect(listing).toEqual({ answer: ["the guest wifi network is called lobby"], calls: ["list", "read s1 since"] })
      expect(state.rawView.unsaved).toEqual({ indexed: 1, removed: false })
      expect(fileIdentity(dir)).toBe(saved)
      expect(yield* ask(processLayer(dir, calls), calls, "guest wifi lobby")).toEqual({
        answer: ["the guest wifi network is called lobby"],
        calls: ["read s1 since", "stat s1"]
      })
    })
  )
  it.scoped("logs copied without their times (same text, new modification times) are read on from where the index stood, not rewritten", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-touched-")
      const { sids, calls } = yield* ticketLogs(dir)
      // The data dir copied by a tool that does not keep times (`cp -r`): every log is another file with a new
      // modification time and the same text. Each is read on from where the saved index stood (nothing new), and
      // the index is not rewritten.
      const copy = yield* scopedTempDir("awhm-touched-copy-")
      fs.cpSync(dir, copy, { recursive: true })
      const saved = fileIdentity(copy)
      const inCopy = (query: string) => ask(processLayer(copy, calls), calls, query)
      const listing = yield* inCopy("ticket t7")
      expect(listing).toEqual({ answer: ["ticket t7 is about the printer"], calls: ["list", ...sids.map((sid) => `read ${sid} since`).sort()] })
      expect(fileIdentity(copy)).toBe(saved)
      // The note beside it carries the new times: the next process reads nothing, nor does the next listing.
      expect(yield* inCopy("ticket t7")).toEqual({ answer: ["ticket t7 is about the printer"], calls: [] })
      vi.setSystemTime(Date.now() + FULL_LISTING_MS + 1000)
      expect(yield* inCopy("ticket t9")).toEqual({ answer: ["ticket t9 is about the printer"], calls: ["list"] })
      expect(yield* inCopy("ticket t9")).toEqual({ answer: ["ticket t9 is about the printer"], calls: [] })
      expect(fileIdentity(copy)).toBe(saved)
      // A log edited in place in the copy, at the same length (its digest differs): read whole again.
      const edited = path.join(copy, "logs", "t9.jsonl")
      fs.writeFileSync(edited, fs.readFileSync(edited, "utf8").replace("printer", "plotter"))
      vi.setSystemTime(Date.now() + FULL_LISTING_MS + 1000)
      expect(yield* inCopy("ticket t9")).toEqual({ answer: ["ticket t9 is about the plotter"], calls: ["list", "read t9"] })
    })
  )

  it.scoped("a listing that read more than 256 sessions again saves the index instead of naming them all", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-grown-many-")
      const { sids, run } = yield* ticketLogs(dir)
      const saved = fileIdentity(dir)
      // Another program adds a line to every log: all read again (their new lines) at the next listing, and saved.
      for (const sid of sids) fs.appendFileSync(path.join(dir, "logs", `${sid}.jsonl`), line(sid, 1, `ticket ${sid} was closed by the helpdesk`))
      vi.setSystemTime(Date.now() + FULL_LISTING_MS + 1000)
      expect((yield* run("ticket t7 closed")).calls.length).toBe(301)
      expect(fileIdentity(dir)).not.toBe(saved)
      expect(yield* run("ticket t7 closed")).toEqual({ answer: ["ticket t7 was closed by the helpdesk"], calls: [] })
    })
  )
})

// rawlog.bin as version 3 wrote it: the sessions as [id, mtimeMs, readAt, count] rows in the metadata's JSON.
const asVersion3 = (bytes: Uint8Array): Uint8Array => {
  const magic = Buffer.from(bytes).readUInt32LE(0)
  const [meta, ids, times, counts, ...rest] = unpackSections(bytes, magic, 7)!
  const table = StringTable.decode(ids!)!
  const t = new Float64Array(times!.slice().buffer)
  const c = new Int32Array(counts!.slice().buffer)
  const sessions = Array.from({ length: table.size }, (_, i) => [table.at(i), t[2 * i], t[2 * i + 1], c[i]])
  const json = { ...JSON.parse(Buffer.from(meta!).toString("utf8")), version: 3, sessions }
  return packSections(magic, [Buffer.from(JSON.stringify(json), "utf8"), ...rest])
}

describe("a saved index of an older version", () => {
  it.scoped("is refused and rebuilt once: the next process reads every log and saves it anew, the one after reads none", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-whole-")
      // Enough messages for the first process to save the index (SAVE_AFTER).
      const lines = [...Array.from({ length: 210 }, (_, i) => ["s1", `standup note number ${i}`]), ["s2", "the deploy freeze starts friday"]]
      for (const [sid, content] of lines) yield* append(dir, sid!, content!)
      const calls: Array<string> = []
      const run = (query: string) => ask(processLayer(dir, calls), calls, query)
      const file = path.join(dir, "index", "rawlog.bin")
      const first = { answer: ["the deploy freeze starts friday"], calls: ["list", "read s1", "read s2"] }
      expect(yield* run("deploy freeze")).toEqual(first)
      expect(yield* run("deploy freeze")).toEqual({ ...first, calls: [] })
      fs.writeFileSync(file, asVersion3(fs.readFileSync(file)))
      expect(yield* run("deploy freeze")).toEqual(first)
      expect(JSON.parse(Buffer.from(unpackSections(fs.readFileSync(file), fs.readFileSync(file).readUInt32LE(0), 7)![0]!).toString("utf8")).version).toBe(4)
      expect(yield* run("deploy freeze")).toEqual({ ...first, calls: [] })
    })
  )
})
