/**
 * Real headless Chromium, the build the `@sparticuz/chromium` package ships (it runs offline), driven by
 * playwright-core: for the tests of what a person opens (the HTML report).
 */
import chromium from '@sparticuz/chromium'
import { chromium as playwright, type Browser } from 'playwright-core'

/**
 * The package's flags emulate a GPU (SwiftShader GL, for WebGL on Lambda). The report draws no WebGL: without them
 * Chromium composites in software, the same page for half the browser's CPU time.
 */
const GPU_EMULATION = /^--(use-gl|use-angle|enable-unsafe-swiftshader|in-process-gpu|ignore-gpu-blocklist)\b/

export async function launchChromium(): Promise<Browser> {
  const executablePath = await chromium.executablePath()
  const args = chromium.args.filter((a) => !GPU_EMULATION.test(a))
  return playwright.launch({ executablePath, args: [...args, '--disable-gpu'], headless: true })
}
