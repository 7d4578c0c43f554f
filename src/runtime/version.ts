/** The package version the bins report. */
export const VERSION = "0.1.0"
