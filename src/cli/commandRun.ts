import { Console, Effect, Layer, Option, Redacted } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import type { ConfigurationError } from "../domain/errors.js"
import { loadConfig } from "../layers/ConfigLive.js"
import { printableLines } from "../text/printable.js"
import { AppConfig } from "../services/AppConfig.js"

/** Builds the flag layer of the configuration from CLI options (snake_case parameter names). */
export const flagMap = (
  dataDir: Option.Option<string>,
  extra: Record<string, string | undefined> = {},
  postgresUrl: Option.Option<Redacted.Redacted> = Option.none()
) => {
  const flags: Record<string, string> = {}
  if (Option.isSome(dataDir)) flags.data_dir = dataDir.value
  if (Option.isSome(postgresUrl)) flags.postgres_url = Redacted.value(postgresUrl.value)
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) flags[k] = v
  return flags
}

/** Loads the configuration for a command, then runs `f` with it and with AppConfig provided. */
export const withConfig = <A, E, R>(
  flags: Record<string, string>,
  f: (config: AwhmConfigShape) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | ConfigurationError, Exclude<R, AppConfig>> =>
  Effect.flatMap(loadConfig(flags), (config) =>
    f(config).pipe(Effect.provide(Layer.succeed(AppConfig, config)))
  ) as Effect.Effect<A, E | ConfigurationError, Exclude<R, AppConfig>>

/** Prints a result: JSON (one value, nothing else on stdout) or the human text, its control characters escaped. */
export const output = (json: boolean, value: unknown, human: () => string) =>
  json ? Console.log(JSON.stringify(value)) : Console.log(printableLines(human()))
