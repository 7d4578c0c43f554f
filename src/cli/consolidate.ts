import { Command, Options } from "@effect/cli"
import { printable } from "../text/printable.js"
import { Effect, Layer, Option } from "effect"
import { embedderLayer, graphStoreLayer, progressLayer, rawLogLayer, stage2Layer } from "../layers/Main.js"
import { consolidatePending, type ConsolidationReport } from "../programs/consolidate.js"
import { dataDirOption, flagMap, jsonOption, output, postgresUrlOption, withConfig } from "./common.js"

const session = Options.text("session").pipe(
  Options.withDescription("Only this session (default: every session with new messages)"),
  Options.optional
)
const stage2 = Options.boolean("stage2").pipe(Options.withDescription("Also run Stage 2 (LLM refinement) on the new messages"))
const stage2Client = Options.choice("stage2-client", ["claude-code", "anthropic"]).pipe(
  Options.withDescription("Stage 2 client (default claude-code: the `claude` CLI, no API key)"),
  Options.optional
)
const stage2Model = Options.text("stage2-model").pipe(Options.withDescription("Stage 2 model name or alias"), Options.optional)

const human = (r: ConsolidationReport): string => {
  const ids = Object.keys(r.sessions)
  if (ids.length === 0) return "No pending sessions to consolidate."
  const lines = ids.map((id) => `  ${printable(id)}: ${r.sessions[id]} new node(s)`)
  return [`Consolidated ${ids.length} session(s), ${r.newNodes} new node(s):`, ...lines].join("\n")
}

/** Progress lines go to stderr, and only for a person watching a terminal. */
const progressLine = (done: number, total: number, sessionId: string, created: number) => {
  if (process.stderr.isTTY) process.stderr.write(`awhm: [${done}/${total}] ${printable(sessionId)}: ${created} new node(s)\n`)
}

/** `awhm consolidate`: Stage 1 (and Stage 2 with --stage2) on the sessions' new messages. */
export const consolidateCommand = Command.make(
  "consolidate",
  { session, stage2, stage2Client, stage2Model, dataDir: dataDirOption, postgresUrl: postgresUrlOption, json: jsonOption },
  (args) =>
    withConfig(
      flagMap(args.dataDir, {
        stage2_enabled: args.stage2 ? "true" : undefined,
        stage2_client: Option.getOrUndefined(args.stage2Client),
        stage2_model: Option.getOrUndefined(args.stage2Model)
      }, args.postgresUrl),
      (config) =>
        consolidatePending({
          ...(Option.isSome(args.session) ? { sessionId: args.session.value } : {}),
          onSession: progressLine
        }).pipe(
          Effect.flatMap((report) => output(args.json, report, () => human(report))),
          Effect.provide(Layer.mergeAll(rawLogLayer(config), graphStoreLayer(config), progressLayer(config), embedderLayer(config), stage2Layer(config)))
        )
    )
).pipe(Command.withDescription("Consolidate new messages into long-term memory (Stage 1, optionally Stage 2)"))
