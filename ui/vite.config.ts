import { defineConfig } from "vite";
import { svelte } from "@sveltejs/vite-plugin-svelte";
import { svelteTesting } from "@testing-library/svelte/vite";

// Offline, strict-CSP build: no inline scripts or styles, no remote assets.
// Tests: pure logic in node, components in jsdom (`// @vitest-environment jsdom`).
export default defineConfig({
  plugins: [svelte(), svelteTesting()],
  clearScreen: false,
  server: { port: 1420, strictPort: true },
  build: { target: "es2022", outDir: "dist", emptyOutDir: true, assetsInlineLimit: 0, cssCodeSplit: false },
  test: { environment: "node", include: ["src/**/*.test.ts"] },
});
