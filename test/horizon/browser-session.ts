/**
 * One admin's Horizon session in chromium, and what every action of the walk needs: open a page,
 * submit a form page, click a table's row action and confirm it, each judged as a user sees it
 * (the HTTP status of the pages, Horizon's error banners, the Django error page).
 */
import type { Page, Response } from 'playwright-core';

/** What one step showed. */
export interface Seen {
  /** Statuses of the documents loaded (the page, the redirect after a form). */
  statuses: number[];
  /** Horizon's error banners and form errors, as shown. */
  errors: string[];
  /** Horizon's success banners. */
  successes: string[];
  /** The page's title. */
  title: string;
}

/** Banners Horizon shows for an error (messages and form errors). */
const ERROR_BANNERS = '.messages .alert-danger, .messages .alert-error, .alert-danger, .has-error .help-block, .errorlist';
const SUCCESS_BANNERS = '.messages .alert-success';

/** The admin's logged-in session on one Horizon. */
export class HorizonSession {
  private documents: number[] = [];

  constructor(
    readonly page: Page,
    readonly base: string,
  ) {
    page.on('response', (response: Response) => {
      if (response.request().resourceType() === 'document') this.documents.push(response.status());
    });
  }

  /** Logs in (domain-less login form), then picks the project and the services region as a user would. */
  async login(user: string, password: string, projectId: string, region: string): Promise<void> {
    await this.page.context().clearCookies();
    await this.page.goto(`${this.base}/auth/login/`);
    await this.page.fill('#id_username', user);
    await this.page.fill('#id_password', password);
    await Promise.all([this.page.waitForURL((url) => !url.pathname.startsWith('/auth/login')), this.page.click('#loginBtn')]);
    // Horizon's project menu: the login may land in any of the user's projects.
    await this.page.goto(`${this.base}/auth/switch/${projectId}/?next=/identity/`);
    // Horizon's region menu: the user's services region for the rest of the session.
    // Once more when the menu does not show it (seen once under load, for the second login of a run).
    const menu = this.page.locator(`.navbar .dropdown-toggle:has-text("${region}")`);
    for (let attempt = 1; ; attempt++) {
      await this.page.goto(`${this.base}/auth/switch_services_region/${region}/?next=/identity/`);
      if ((await menu.count()) > 0) return;
      if (attempt === 2) {
        const shown = (await this.page.locator('.navbar').allTextContents()).join(' ').replace(/\s+/g, ' ');
        throw new Error(`Horizon did not switch to region ${region} (${this.page.url()}; the menu shows: ${shown.slice(0, 300)})`);
      }
      await this.page.waitForTimeout(1_000);
    }
  }

  private async seen(): Promise<Seen> {
    const statuses = this.documents;
    this.documents = [];
    const texts = async (selector: string) =>
      (await this.page.locator(selector).allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').replace(/^× ?/, '').trim()).filter(Boolean);
    return { statuses, errors: [...new Set(await texts(ERROR_BANNERS))], successes: await texts(SUCCESS_BANNERS), title: await this.page.title() };
  }

  /**
   * Resolves once the page has loaded the next document (after a form post, its redirect's
   * target: redirects do not count as navigations).
   */
  private async navigation(): Promise<void> {
    await this.page.waitForEvent('framenavigated', { predicate: (frame) => frame === this.page.mainFrame(), timeout: 30_000 });
    await this.page.waitForLoadState('load');
  }

  /** Opens `path`. */
  async open(path: string): Promise<Seen> {
    this.documents = [];
    await this.page.goto(`${this.base}${path}`);
    return this.seen();
  }

  /** Whether the page has `selector`. */
  async has(selector: string): Promise<boolean> {
    return (await this.page.locator(selector).count()) > 0;
  }

  /** The href of the link `selector`, or undefined. */
  async href(selector: string): Promise<string | undefined> {
    const link = this.page.locator(selector).first();
    return (await link.count()) > 0 ? ((await link.getAttribute('href')) ?? undefined) : undefined;
  }

  /**
   * Opens the form page `path` (a modal form, rendered as a page), fills it (`fill(page)`) and
   * submits it, following the redirect; the status of the form page and what the answer showed.
   */
  async submit(path: string, fill: (page: Page) => Promise<void>): Promise<Seen> {
    const form = await this.open(path);
    if (form.statuses.some((status) => status >= 400) || !(await this.has('.modal-footer [type=submit]'))) return form;
    await fill(this.page);
    const navigated = this.navigation();
    await this.page.locator('.modal-footer [type=submit]').first().click();
    await navigated;
    const answer = await this.seen();
    return { ...answer, statuses: [...form.statuses, ...answer.statuses] };
  }

  /**
   * On the current page, clicks the table action button `selector` (a row's delete or toggle,
   * possibly inside its row's menu) and confirms Horizon's dialog when one opens.
   */
  async clickAndConfirm(selector: string): Promise<Seen> {
    this.documents = [];
    const posted = this.page.waitForResponse((response) => response.request().method() === 'POST' && response.request().resourceType() === 'document', {
      timeout: 20_000,
    });
    const navigated = this.navigation();
    // The button may sit in the row's closed drop-down menu: a DOM click reaches Horizon's handler.
    await this.page.locator(selector).first().dispatchEvent('click');
    // Horizon asks to confirm a delete in a dialog; other batch actions post at once.
    const confirm = this.page.locator('#modal_wrapper .modal-footer .btn-danger, #modal_wrapper .modal-footer .btn-primary').first();
    const first = await Promise.race([confirm.waitFor({ state: 'visible', timeout: 20_000 }).then(() => 'confirm'), posted.then(() => 'posted')]);
    if (first === 'confirm') await confirm.click();
    await navigated;
    return this.seen();
  }
}
