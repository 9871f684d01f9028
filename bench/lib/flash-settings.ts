// The settings that give the write path as it was before the flash-wear change (the baseline the
// flash benchmarks measure in the same run): roll-ups merged by every commit and polled telemetry
// committed within telemetry_flush_ms (telemetry_hold_ms 0), 4 KiB pages, a checkpoint every 4 MiB
// of log. The readings' group commit follows telemetry_hold_ms too (src/db/group-commit.ts).
export const FLASH_BEFORE: Record<string, string> = { telemetry_hold_ms: '0', sqlite_page_size: '4096', sqlite_checkpoint_bytes: '4M' };
