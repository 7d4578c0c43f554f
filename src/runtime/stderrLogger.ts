import { Logger } from "effect"

/**
 * Replaces Effect's default logger (which writes to stdout) with one line per message on stderr, so
 * warnings never corrupt `--json` output, hook answers or the MCP stream.
 */
export const stderrLogger = (prefix: string, write: (text: string) => void = (text) => process.stderr.write(text)) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
      write(`${prefix} ${logLevel.label.toLowerCase()}: ${text}\n`)
    })
  )
