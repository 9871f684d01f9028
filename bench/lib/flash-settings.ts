// The settings that give the write path as it was before the flash-wear change (the baseline the
// flash benchmarks measure in the same run): roll-ups merged by every commit and polled telemetry
// committed within telemetry_flush_ms (telemetry_hold_ms 0), 4 KiB pages, a checkpoint every 4 MiB
// of log. The readings' group commit follows telemetry_hold_ms too (src/db/group-commit.ts).
export const FLASH_BEFORE: Record<string, string> = { telemetry_hold_ms: '0', sqlite_page_size: '4096', sqlite_checkpoint_bytes: '4M' };

/**
 * In every phase: the server's own checkpoint is set past a window's log, so a window's frames are
 * counted whole; the checkpoint the window ends with (bench/lib/flash-window.ts) stands for it, and
 * copies the window's pages once, as the server's would after up to sqlite_checkpoint_bytes of log.
 */
export const WINDOW_WHOLE: Record<string, string> = { sqlite_checkpoint_bytes: '1G' };
