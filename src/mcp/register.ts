import { McpSchema, McpServer, Tool, type Toolkit } from "@effect/ai"
import { Cause, Context, Effect, JSONSchema, Option, ParseResult } from "effect"
import { errorLine } from "../domain/errors.js"
import { MemoryToolkit } from "./tools.js"

type Tools = Toolkit.Tools<typeof MemoryToolkit>

/** The text content of each tool's successful result (the structured result goes alongside). */
export type Renderers = { readonly [K in keyof Tools]: (result: Tool.Success<Tools[K]>) => string }

/** The MCP input schema of a tool's parameters (as @effect/ai's own registration builds it). */
const inputSchema = (tool: Tool.Any): object => {
  const defs: Record<string, JSONSchema.JsonSchema7> = {}
  const schema = JSONSchema.fromAST(tool.parametersSchema.ast, { definitions: defs, topLevelReferenceStrategy: "skip" })
  return Object.keys(defs).length === 0 ? schema : { ...schema, $defs: defs }
}

const toolError = (text: string) => new McpSchema.CallToolResult({ isError: true, content: [{ type: "text", text }] })

/** Why the Toolkit refused a call, in one readable piece (bad arguments carry a ParseError). */
const describeFailure = (name: string, error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const cause = (error as { cause?: unknown }).cause
    if (ParseResult.isParseError(cause)) return `Invalid arguments for ${name}: ${cause.message}`
  }
  return errorLine(error)
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
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          inputSchema: inputSchema(tool),
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
        handle: (payload: unknown) =>
          built.handle(name, payload as never).pipe(
            Effect.map(({ isFailure, result, encodedResult }) =>
              isFailure
                ? toolError((result as { message: string }).message)
                : new McpSchema.CallToolResult({
                    isError: false,
                    content: [{ type: "text", text: render(result) }],
                    structuredContent: encodedResult
                  })
            ),
            Effect.catchAllCause((cause) => {
              const failure = Cause.failureOption(cause)
              return Effect.succeed(
                toolError(
                  failure._tag === "Some"
                    ? describeFailure(tool.name, failure.value)
                    : `${tool.name} failed: ${Cause.squash(cause) instanceof Error ? (Cause.squash(cause) as Error).message : "internal error"}`
                )
              )
            })
          )
      })
    }
  })
