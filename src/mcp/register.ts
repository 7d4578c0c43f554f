import { McpSchema, McpServer, Tool, type Toolkit } from "@effect/ai"
import { Cause, Context, Effect, Either, JSONSchema, Option, ParseResult, Schema } from "effect"
import { errorLine } from "../domain/errors.js"
import { MemoryToolkit } from "./tools.js"

type Tools = Toolkit.Tools<typeof MemoryToolkit>

/** The text content of each tool's successful result (the structured result goes alongside). */
export type Renderers = { readonly [K in keyof Tools]: (result: Tool.Success<Tools[K]>) => string }

/** The JSON Schema of a tool's parameters or result (as @effect/ai's own registration builds it). */
const jsonSchema = (schema: Schema.Schema.All): Record<string, unknown> => {
  const defs: Record<string, JSONSchema.JsonSchema7> = {}
  const out = JSONSchema.fromAST(schema.ast, { definitions: defs, topLevelReferenceStrategy: "skip" })
  return Object.keys(defs).length === 0 ? { ...out } : { ...out, $defs: defs }
}

/** Each tool's result schema (MCP's outputSchema), which @effect/ai's Tool listing cannot carry: see protocol.ts. */
export const outputSchemas = (): Record<string, Record<string, unknown>> =>
  Object.fromEntries(Object.values(MemoryToolkit.tools).map((tool) => [tool.name, jsonSchema((tool as Tool.Any).successSchema)]))

/**
 * Checks a call's arguments strictly (an unknown argument is an error, not ignored) and says what is
 * wrong in one line: the argument and the rule, never the value given (it may be memory content).
 */
export const argumentProblem = (tool: Tool.Any, payload: unknown): string | null => {
  const decoded = Schema.decodeUnknownEither(tool.parametersSchema as Schema.Schema<unknown, unknown>, {
    errors: "all",
    onExcessProperty: "error"
  })(payload)
  if (Either.isRight(decoded)) return null
  // An optional argument's "or undefined" branch says nothing a caller can act on.
  const relevant = ParseResult.ArrayFormatter.formatErrorSync(decoded.left).filter((i) => !i.message.startsWith("Expected undefined"))
  const issues = relevant.map((issue) => {
    const name = issue.path.map(String).join(".")
    const rule = issue._tag === "Unexpected" ? "is not an argument of this tool" : issue.message.split(", actual")[0]!.split("\n")[0]!
    return name === "" ? rule : `${name}: ${rule}`
  })
  return `Invalid arguments for ${tool.name}: ${[...new Set(issues)].join("; ")}`
}

const toolError = (text: string) => new McpSchema.CallToolResult({ isError: true, content: [{ type: "text", text }] })

/** Why a call failed, in one line (a defect or a result that does not fit its schema: never a parse tree). */
const describeFailure = (name: string, cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  const error = failure._tag === "Some" ? failure.value : Cause.squash(cause)
  const line = ParseResult.isParseError(error) ? "" : errorLine(error).trim()
  return `${name} failed: ${line === "" ? "internal error" : line}`
}

/**
 * Registers the memory tools with the MCP server. Like McpServer.registerToolkit, but each result's
 * text is the human message (as the reference's server returned it) and the data goes out as
 * structuredContent; failures and bad arguments come back as tool errors, never as crashes.
 */
export const registerMemoryTools = (renderers: Renderers) =>
  Effect.gen(function* () {
    const registry = yield* McpServer.McpServer
    const built = yield* MemoryToolkit
    for (const tool of Object.values(built.tools) as ReadonlyArray<Tool.Any>) {
      const name = tool.name as keyof Tools
      const render = renderers[name] as (result: unknown) => string
      yield* registry.addTool({
        tool: new McpSchema.Tool({
          name: tool.name,
          ...Option.match(Context.getOption(tool.annotations as Context.Context<Tool.Title>, Tool.Title), {
            onNone: () => ({}),
            onSome: (title) => ({ title })
          }),
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          inputSchema: jsonSchema(tool.parametersSchema),
          annotations: new McpSchema.ToolAnnotations({
            ...Option.match(Context.getOption(tool.annotations as Context.Context<Tool.Title>, Tool.Title), {
              onNone: () => ({}),
              onSome: (title) => ({ title })
            }),
            readOnlyHint: Context.get(tool.annotations, Tool.Readonly),
            destructiveHint: Context.get(tool.annotations, Tool.Destructive),
            idempotentHint: Context.get(tool.annotations, Tool.Idempotent),
            openWorldHint: Context.get(tool.annotations, Tool.OpenWorld)
          })
        }),
        handle: (payload: unknown) => {
          const problem = argumentProblem(tool, payload)
          if (problem !== null) return Effect.succeed(toolError(problem))
          return built.handle(name, payload as never).pipe(
            Effect.map(({ isFailure, result, encodedResult }) =>
              isFailure
                ? toolError((result as { message: string }).message)
                : new McpSchema.CallToolResult({
                    isError: false,
                    content: [{ type: "text", text: render(result) }],
                    structuredContent: encodedResult
                  })
            ),
            Effect.catchAllCause((cause) => Effect.succeed(toolError(describeFailure(tool.name, cause))))
          )
        }
      })
    }
  })
