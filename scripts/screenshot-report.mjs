// Makes docs/images/report.png, the README's picture of the HTML report:
//   CI=true npx vitest run --config <a copy of vitest.config.ts with htmlFile: 'tool-evals-report.html'>
//   node scripts/screenshot-report.mjs [tool-evals-report.html] [docs/images/report.png]
// Uses the headless Chromium the HTML report's tests use (@sparticuz/chromium, no download).
import chromium from '@sparticuz/chromium'
import { chromium as playwright } from 'playwright-core'
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'

const [html = 'tool-evals-report.html', png = 'docs/images/report.png'] = process.argv.slice(2)
const browser = await playwright.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true })
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 })
  await page.goto(pathToFileURL(resolve(html)).href)
  await page.waitForLoadState('load')
  await page.screenshot({ path: png, fullPage: false })
} finally {
  await browser.close()
}
