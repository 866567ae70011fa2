// The operator console in a real browser: Debian's Chromium driven by playwright-core, as an
// operator would use it, against a running `mcec serve --console` whose agent side the test
// drives through the façade. cmd/mcec's TestConsoleInChromium starts the server and this file
// (node --test) with MCEC_CONSOLE_LOGIN (the one-time login link), MCEC_BASE and MCEC_TOKEN (the
// agents' server and bearer token), MCEC_BIN (the mcec binary) and MCEC_SESSIONS_DIR (the
// server's sessions directory, for `mcec view`) and MCEC_RUNTIME_DIR (its runtime directory, where
// provisioned instances keep their logs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const { MCEC_CONSOLE_LOGIN: login, MCEC_BASE: base, MCEC_TOKEN: token, MCEC_BIN: mcec, MCEC_SESSIONS_DIR: sessionsDir,
  MCEC_RUNTIME_DIR: runtimeDir } = process.env;

async function agent(tool, args = {}) {
  const r = await fetch(`${base}/v1/tools/${tool}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(args),
  });
  assert.equal(r.status, 200, `${tool}: HTTP ${r.status}`);
  return r.json();
}

test('an operator watches live, stops, approves, takes over and re-arms mcec from the console', async (t) => {
  assert.ok(login && base && token, 'MCEC_CONSOLE_LOGIN, MCEC_BASE and MCEC_TOKEN must be set');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  t.after(() => browser.close());
  const page = await browser.newPage();
  page.setDefaultTimeout(15000);

  await t.test('the one-time link logs in', async () => {
    const resp = await page.goto(login);
    assert.equal(resp.status(), 200);
    assert.equal(await page.title(), 'mcec console');
    await page.waitForSelector('#state.armed');
  });

  // The sum of the live view's pixels in a screen rectangle, as the page shows them now.
  const sample = (r) => page.evaluate((r) => {
    const img = document.getElementById('screen');
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    let sum = 0;
    for (const v of g.getImageData(r.x, r.y, r.width, r.height).data) sum += v;
    return sum;
  }, r);
  const changes = async (r, before) => {
    for (let i = 0; i < 100; i++) {
      if (await sample(r) !== before) return;
      await page.waitForTimeout(100);
    }
    assert.fail(`the live view did not change in ${JSON.stringify(r)} within 10 s`);
  };
  let term; // the xterm the server launched, as windows reports it
  let box; // its rectangle on the screen

  await t.test("an agent's typing shows up in the live view", async () => {
    await page.waitForFunction(() => document.getElementById('screen').naturalWidth > 0);
    const wins = await agent('windows');
    term = wins.result.windows.find((w) => /xterm/i.test(w.className || '') || /xterm/i.test(w.title || ''));
    assert.ok(term, `no xterm among ${JSON.stringify(wins.result.windows.map((w) => w.title))}`);
    box = { x: term.x, y: term.y, width: term.width, height: term.height };
    const before = await sample(box);
    assert.equal((await agent('focus', { handle: term.handle })).ok, true);
    assert.equal((await agent('send_command', { command: 'chars:echo agent-was-here' })).ok, true);
    await changes(box, before);
  });

  await t.test("an agent's call shows up in the narration", async () => {
    const env = await agent('windows');
    assert.equal(env.ok, true);
    const row = page.locator('#calls tr[data-tool="windows"]').first();
    await row.waitFor();
    assert.match(await row.innerText(), /ok/);
  });

  await t.test('Stop refuses the next call with the stop code; Re-arm serves again', async () => {
    await page.click('#stop');
    await page.waitForSelector('#state.stopped');
    const refused = await agent('windows');
    assert.equal(refused.ok, false);
    assert.equal(refused.error.code, 'emergency-stopped');
    await page.locator('#calls tr.failed', { hasText: 'emergency-stopped' }).first().waitFor();
    page.once('dialog', (d) => d.accept());
    await page.click('#rearm');
    await page.waitForSelector('#state.armed');
    assert.equal((await agent('windows')).ok, true);
  });

  await t.test('a consent question answered in the page grants the command, for the process or one session; Revoke gates it again', async () => {
    const asked = agent('request-command-access', { commands: ['launch'], reason: 'open the editor' });
    await page.waitForSelector('#approval:not([hidden])');
    assert.equal(await page.locator('#q-commands').innerText(), 'launch');
    assert.match(await page.locator('#q-reason').innerText(), /open the editor/);
    await page.click('#grant');
    const env = await asked;
    assert.equal(env.ok, true, JSON.stringify(env.error));
    assert.deepEqual(env.result.granted, ['launch']);
    assert.equal(env.result.answeredBy, 'operator');
    await page.waitForSelector('#approval[hidden]', { state: 'attached' });
    const revoke = page.locator('#grants li', { hasText: 'launch' }).getByRole('button', { name: 'Revoke' });
    await revoke.click();
    await page.waitForSelector('#grants-panel[hidden]', { state: 'attached' });
    const refused = await agent('launch', { path: '/bin/true' });
    assert.equal(refused.ok, false);
    assert.equal(refused.error.code, 'command-disabled');

    // "Allow for this session": that session may launch, the default session may not.
    const own = (await agent('session-start')).sessionId;
    const askedInSession = agent('request-command-access', { sessionId: own, commands: ['launch'], reason: 'open the editor' });
    await page.waitForSelector('#approval:not([hidden])');
    await page.click('#grant-session');
    const scoped = await askedInSession;
    assert.equal(scoped.ok, true, JSON.stringify(scoped.error));
    assert.equal(scoped.result.scope, 'session');
    const listed = page.locator('#grants li', { hasText: own });
    await listed.waitFor();
    assert.match(await listed.innerText(), /launch \(for session/);
    const launched = await agent('launch', { sessionId: own, path: '/bin/true', timeout: 0 });
    assert.notEqual(launched.error?.code, 'command-disabled', JSON.stringify(launched.error));
    assert.equal((await agent('launch', { path: '/bin/true' })).error?.code, 'command-disabled');
    await listed.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForSelector('#grants-panel[hidden]', { state: 'attached' });
    assert.equal((await agent('launch', { sessionId: own, path: '/bin/true', timeout: 0 })).error?.code, 'command-disabled');
    assert.equal((await agent('session-end', { sessionId: own })).ok, true);
  });

  await t.test("Take control refuses the agents' actions, not their observation; the operator's click and keys land; Hand back serves them again", async () => {
    const click = { at: { x: 5, y: 5 }, settle: 0 };
    await page.click('#take');
    await page.waitForSelector('#control.operator');
    const refused = await agent('click', click);
    assert.equal(refused.ok, false);
    assert.equal(refused.error.code, 'operator-in-control');
    assert.equal((await agent('windows')).ok, true);
    const status = await agent('session-status');
    assert.equal(status.result.control.holder, 'operator');
    // The operator drives the desktop from the live view: a click on the xterm, then keys.
    const k = await page.evaluate(() => { const i = document.getElementById('screen'); return i.clientWidth / i.naturalWidth; });
    const before = await sample(box);
    await page.locator('#screen').click({ position: { x: (box.x + box.width / 2) * k, y: (box.y + box.height / 2) * k } });
    await page.keyboard.type('operator');
    await page.keyboard.press('Enter');
    await changes(box, before);
    await page.click('#handback');
    await page.waitForSelector('#control.agents');
    const served = await agent('click', click);
    assert.equal(served.ok, true, JSON.stringify(served.error));
    assert.ok((served.warnings || []).some((w) => w.code === 'operator-intervened'), JSON.stringify(served.warnings));
  });

  // A session of its own, ended, with one failed call.
  let reviewed;
  await t.test('the trace viewer shows a finished session, opened on its first failure', async () => {
    const started = await agent('session-start');
    reviewed = started.sessionId;
    assert.equal((await agent('windows', { sessionId: reviewed })).ok, true);
    const failed = await agent('window', { sessionId: reviewed, handle: 1, action: 'foreground' });
    assert.equal(failed.ok, false);
    assert.equal((await agent('session-end', { sessionId: reviewed })).ok, true);
    const link = page.locator(`#sessions tr[data-session="${reviewed}"] a`);
    await link.waitFor();
    const [viewer] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await viewer.waitForLoadState();
    assert.match(await viewer.title(), /mcec trace/);
    assert.equal(await viewer.locator('#verdict').getAttribute('data-intact'), 'true');
    assert.match(await viewer.locator('#timeline').innerText(), /windows[\s\S]*window[\s\S]*window-closed/);
    // It opens on the first failure: that call's details are open and focused.
    const focused = await viewer.evaluate(() => {
      const d = document.activeElement && document.activeElement.closest('details');
      return d ? { open: d.open, text: d.innerText } : null;
    });
    assert.ok(focused && focused.open, 'the first failure is not open and focused');
    assert.match(focused.text, /stale-element\/window-closed/);
    await viewer.close();
  });

  await t.test('mcec view flags a tampered bundle', async () => {
    assert.ok(mcec && sessionsDir, 'MCEC_BIN and MCEC_SESSIONS_DIR must be set');
    const dir = readdirSync(sessionsDir).find((n) => n.endsWith(reviewed));
    assert.ok(dir, `no directory for ${reviewed} in ${sessionsDir}`);
    const work = mkdtempSync(join(tmpdir(), 'mcec-view-'));
    t.after(() => rmSync(work, { recursive: true, force: true }));
    // Someone rewrites history: the failed call becomes a success, in a copy zipped as a bundle.
    const copy = join(work, dir);
    cpSync(join(sessionsDir, dir), copy, { recursive: true });
    const trace = join(copy, 'tool-calls.jsonl');
    writeFileSync(trace, readFileSync(trace, 'utf8').replace('"ok":false', '"ok":true'));
    execFileSync(mcec, ['bundle', copy, '--out', join(work, 'tampered.zip')], { stdio: 'pipe' });
    const out = execFileSync(mcec, ['view', join(work, 'tampered.zip'), '--out', join(work, 'tampered.html')], { encoding: 'utf8' });
    assert.match(out, /BROKEN/);
    const viewer = await browser.newPage();
    await viewer.goto(pathToFileURL(join(work, 'tampered.html')).href);
    assert.equal(await viewer.locator('#verdict').getAttribute('data-intact'), 'false');
    assert.match(await viewer.locator('#verdict').innerText(), /BROKEN: tool-calls.jsonl line \d+/);
    assert.ok(await viewer.locator('#timeline tr.tampered').count() > 0, 'no row is marked as after the break');
    await viewer.close();
  });

  await t.test("an isolated instance an agent provisions is listed, and its own console opens from here", async () => {
    const prov = await agent('provision-session');
    assert.equal(prov.ok, true, JSON.stringify(prov.error));
    const inst = prov.result;
    try {
      const link = page.locator(`#fleet tr[data-instance="${inst.sessionId}"] a`);
      await link.waitFor();
      const [other] = await Promise.all([page.waitForEvent('popup'), link.click()]);
      await other.waitForLoadState();
      assert.equal(await other.title(), 'mcec console');
      await other.waitForSelector('#state.armed');
      assert.notEqual(new URL(other.url()).port, new URL(page.url()).port, "the instance's console is this one");
      // The instance's own narration shows a call made on the instance, not here.
      const r = await fetch(`${inst.facadeUrl}/windows`, {
        method: 'POST', headers: { Authorization: `Bearer ${inst.token}`, 'Content-Type': 'application/json' }, body: '{}',
      });
      assert.equal(r.status, 200);
      await other.locator('#calls tr[data-tool="windows"]').first().waitFor();
      // The instance's login links live only in memory: none is in a file (its log among them).
      if (runtimeDir) {
        for (const f of readdirSync(runtimeDir, { recursive: true, withFileTypes: true })) {
          if (!f.isFile()) continue;
          const path = join(f.parentPath, f.name);
          assert.ok(!readFileSync(path, 'latin1').includes('/login?t='), `${path} holds a console login link`);
        }
      }
      await other.close();
      // Logging in there did not log the operator out here.
      assert.equal(await page.evaluate(async () => (await fetch('/api/state')).status), 200);
    } finally {
      const ended = await agent('end-session', { sessionId: inst.sessionId, token: inst.token });
      assert.equal(ended.ok, true, JSON.stringify(ended.error));
    }
    await page.locator(`#fleet tr[data-instance="${inst.sessionId}"]`).waitFor({ state: 'detached' });
  });

  await t.test('the credentials are kept apart', async () => {
    const consoleOrigin = new URL(login).origin;
    const withToken = await fetch(`${consoleOrigin}/api/state`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(withToken.status, 401, "the agents' token opens the console");
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    assert.ok(cookie, 'the console set no cookie');
    const withCookie = await fetch(`${base}/v1/tools/windows`, { method: 'POST', headers: { Cookie: cookie }, body: '{}' });
    assert.equal(withCookie.status, 401, "the console's cookie opens the agents' endpoint");
    const other = await browser.newPage();
    const again = await other.goto(login);
    assert.equal(again.status(), 401, 'a login link worked twice');
  });
});
