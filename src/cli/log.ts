import { Args, Command, Options } from "@effect/cli"
import { printable } from "../text/printable.js"
import { Effect, Layer, Option } from "effect"
import { rawLogLayer } from "../layers/Main.js"
import { SessionBufferLive } from "../layers/SessionBufferLive.js"
import { parseRole } from "../domain/input.js"
import { logMessage } from "../programs/logMessage.js"
import { dataDirOption, flagMap, jsonOption, output, postgresUrlOption, withConfig } from "./common.js"

const session = Options.text("session").pipe(Options.withDescription("Session id (any non-empty string)"))
// Parsed by hand so a bad role is one line and exit 2, like every other usage error.
const role = Options.text("role").pipe(Options.withDescription("user, assistant, tool_call or tool_result"))
const timestamp = Options.text("timestamp").pipe(
  Options.withDescription("ISO time of the message (replaying a history); default now"),
  Options.optional
)
const text = Args.text({ name: "text" }).pipe(Args.withDescription("The message, verbatim"))

/** `awhm log`: append one message to a session's raw log and run the session buffer on it. */
export const logCommand = Command.make(
  "log",
  { session, role, timestamp, text, dataDir: dataDirOption, postgresUrl: postgresUrlOption, json: jsonOption },
  (args) =>
    withConfig(flagMap(args.dataDir, {}, args.postgresUrl), (config) =>
      Effect.gen(function* () {
        const parsedRole = yield* parseRole(args.role)
        const result = yield* logMessage({
          sessionId: args.session,
          role: parsedRole,
          content: args.text,
          ...(Option.isSome(args.timestamp) ? { timestamp: args.timestamp.value } : {})
        })
        yield* output(
          args.json,
          { sessionId: result.entry.session_id, messageIndex: result.entry.index, bufferEntries: result.bufferEntries },
          () =>
            `logged message ${result.entry.index} in session ${printable(result.entry.session_id)}` +
            (result.caught.length > 0 ? ` (buffered: ${result.caught.map((c) => c.type).join(", ")})` : "")
        )
      }).pipe(Effect.provide(Layer.merge(rawLogLayer(config), SessionBufferLive)))
    )
).pipe(Command.withDescription("Append a message to a session's raw log and run the session buffer on it"))
