import * as fs from "node:fs"
import { Cause, ConfigError, ConfigProvider, Effect, Layer } from "effect"
import { awhmConfig, type AwhmConfigShape } from "../domain/Config.js"
import { ConfigurationError } from "../domain/errors.js"
import { dataPaths, resolveDataDir } from "../store/paths.js"
import { AppConfig } from "../services/AppConfig.js"

/** Environment variables that are switches of their own, not configuration parameters. */
const NOT_PARAMETERS = new Set(["data_dir", "hook_active", "hook_server", "mock_embeddings", "stage2", "scope", "bench_full"])

const envParameters = (env: NodeJS.ProcessEnv): Map<string, string> => {
  const map = new Map<string, string>()
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith("AWHM_") || value === undefined) continue
    const name = key.slice(5).toLowerCase()
    if (!NOT_PARAMETERS.has(name)) map.set(name, value)
  }
  // The reference's switches, kept for its users' scripts.
  if (/^(1|true)$/i.test(env.AWHM_MOCK_EMBEDDINGS ?? "") && !map.has("embedder")) map.set("embedder", "mock")
  if (/^(1|true)$/i.test(env.AWHM_STAGE2 ?? "") && !map.has("stage2_enabled")) map.set("stage2_enabled", "true")
  if (env.AWHM_SCOPE !== undefined && !map.has("scope_mode")) map.set("scope_mode", env.AWHM_SCOPE)
  return map
}

const describeConfigError = (error: ConfigError.ConfigError): string => {
  // Prefer the invalid value over "missing in a higher-precedence source".
  const find = (e: ConfigError.ConfigError, op: string): string | null => {
    switch (e._op) {
      case "And":
      case "Or":
        return find(e.left, op) ?? find(e.right, op)
      default:
        return e._op === op || op === "*" ? `${e.path.join(".") || "configuration"}: ${e.message}` : null
    }
  }
  return `invalid configuration: ${find(error, "InvalidData") ?? find(error, "*")}`
}

/**
 * Resolves the configuration: flags > AWHM_<NAME> env > <data-dir>/config.json > defaults.
 * `flags` uses the parameters' snake_case names.
 */
export const loadConfig = (
  flags: Readonly<Record<string, string>> = {},
  env: NodeJS.ProcessEnv = process.env
): Effect.Effect<AwhmConfigShape, ConfigurationError> =>
  Effect.gen(function* () {
    const dataDir = resolveDataDir(flags.data_dir, env)
    const configFile = dataPaths(dataDir).configJson
    const fileConfig = yield* Effect.try({
      try: () => (fs.existsSync(configFile) ? (JSON.parse(fs.readFileSync(configFile, "utf8")) as unknown) : {}),
      catch: (e) => new ConfigurationError({ message: `invalid configuration: ${configFile} is not valid JSON (${e instanceof Error ? e.message : String(e)})` })
    })
    if (typeof fileConfig !== "object" || fileConfig === null || Array.isArray(fileConfig)) {
      return yield* new ConfigurationError({ message: `invalid configuration: ${configFile} must hold a JSON object` })
    }
    const jsonValues: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(fileConfig)) if (v !== null) jsonValues[k] = v
    const provider = ConfigProvider.fromMap(new Map(Object.entries(flags).filter(([k]) => k !== "data_dir"))).pipe(
      ConfigProvider.orElse(() => ConfigProvider.fromMap(envParameters(env))),
      ConfigProvider.orElse(() => ConfigProvider.fromJson(jsonValues))
    )
    const values = yield* Effect.withConfigProvider(awhmConfig, provider).pipe(
      Effect.catchAllCause((cause) => {
        const failure = Cause.failureOption(cause)
        return failure._tag === "Some" && ConfigError.isConfigError(failure.value)
          ? new ConfigurationError({ message: describeConfigError(failure.value) })
          : new ConfigurationError({ message: `invalid configuration: ${Cause.pretty(cause).split("\n")[0]}` })
      })
    )
    return { ...values, dataDir }
  })

/** AppConfig from flags, environment and config.json. */
export const ConfigLive = (flags: Readonly<Record<string, string>> = {}) => Layer.effect(AppConfig, loadConfig(flags))

/** AppConfig with defaults and overrides, for tests and embedding apps. */
export const ConfigFromValues = (dataDir: string, overrides: Readonly<Record<string, string>> = {}) =>
  Layer.effect(AppConfig, loadConfig({ ...overrides, data_dir: dataDir }, {}))
