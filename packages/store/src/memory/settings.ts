/** Settings in memory. */
import type { SettingsStore } from "../types/index.js";
import type { MemoryState } from "./state.js";

/** The settings of a memory store. */
export function memorySettings(s: MemoryState): SettingsStore {
  return {
    async get(key) {
      s.open();
      return s.settings.get(key);
    },
    async setIfAbsent(key, value) {
      s.open();
      const existing = s.settings.get(key);
      if (existing !== undefined) return existing;
      s.settings.set(key, value);
      return value;
    },
  };
}
