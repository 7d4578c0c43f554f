/** The settled marks of full runs, and where the last one found the raw log's change journal. */
export interface SettledLogs {
  readonly logs: ReadonlyMap<string, string>
  readonly listing: Listing | null
}

/** A full run's start: the change journal's mark (RawLog.changesSince) and when every log was last listed (ms). */
export interface Listing {
  readonly mark: string
  readonly listedAt: number
}
