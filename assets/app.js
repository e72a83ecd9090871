// cashkeeper: the one script of the pages. Forms with data-action post their
// fields as JSON to /actions/{name} and show the answer: field errors next to
// the field they name, other errors above the button.
//
// Form attributes:
//   data-action="name"    the server action to call
//   data-redirect="/path" where to go after success
//   data-reload           reload the page after success
//   data-done="hide"      hide the form and show its .form-success
//   data-done="reset"     clear the form and show its .form-success
//   data-confirm="text"   ask before sending (deletions)
//   data-second-step="#f" a reply asking for a code ({totpRequired, challenge})
//                         shows form #f instead, with the challenge filled in,
//                         and hides what is marked data-first-step
//   data-upload="/url"    instead: send each chosen file as multipart/form-data
//                         (part `file`, the other fields beside it; a field
//                         `attach` holding "name:value" is sent as name=value),
//                         then reload; a .dropzone inside takes dropped files
// Field attributes:
//   data-optional         leave the field out when empty
//   data-type="number"    send as a JSON number; data-type="bool" a checkbox's state
//   data-type="amount"    an amount as typed in the user's style (1.234,56):
//                         sent as typed and named in `_localized`, so the
//                         server reads it in the user's language
//   data-value="v"        sent instead of the text shown (a bank picked from
//                         a list shows its name and sends its code); a page's
//                         script removes it when the text is typed anew
'use strict';

(function () {
  function collect(form) {
    const data = {};
    for (const el of form.elements) {
      if (!el.name || el.disabled) continue;
      if ((el.type === 'radio' || el.type === 'checkbox') && el.dataset.type !== 'bool' && !el.checked) continue;
      // A choice "name:value" (which record a document belongs to) is sent as name=value.
      if (el.name === 'attach') {
        const i = el.value.indexOf(':');
        if (i > 0) data[el.value.slice(0, i)] = el.value.slice(i + 1);
        continue;
      }
      let value = el.dataset.value !== undefined ? el.dataset.value : el.value;
      if (el.dataset.type === 'bool') value = el.checked;
      else if (value === '' && el.dataset.optional !== undefined) continue;
      else if (value === '' && el.dataset.nullable !== undefined) value = null;
      else if (el.dataset.type === 'number' && value !== '') value = Number(value);
      data[el.name] = value;
      if (el.dataset.type === 'amount' && typeof value === 'string') {
        (data._localized = data._localized || []).push(el.name);
      }
    }
    return data;
  }

  // A canonical amount (12.5, "12.50") as the user types amounts: German
  // pages write the cents after a comma (see data-type="amount").
  function localAmount(v) {
    if (v === null || v === undefined || v === '') return v;
    const s = typeof v === 'number' ? v.toFixed(2) : String(v);
    return document.documentElement.lang === 'de' ? s.replace('.', ',') : s;
  }

  // No answer from the server (offline, or a reply that is no JSON), in
  // the page's language.
  function networkError() {
    return document.body.dataset.msgNetwork || 'No connection to the server; try again.';
  }

  // One call of a server action outside a form, for this script and the
  // pages' own (window.cashkeeper.action): the answer's JSON; when the
  // server was not reached or sent no JSON, {success: false, network: true}
  // with the network message, and unreached: true as well when the request
  // never got an answer (the browser offline, the server gone), for a page
  // that words that case its own way. A session that ended goes to the
  // login and the promise never settles.
  async function action(name, body) {
    let res;
    try {
      res = await fetch('/actions/' + encodeURIComponent(name), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        credentials: 'same-origin',
        body: JSON.stringify(body || {}),
      });
    } catch (_) {
      return { success: false, network: true, unreached: true, error: networkError() };
    }
    if (res.status === 401) { window.location.assign('/login'); return new Promise(function () {}); }
    try { return await res.json(); } catch (_) { return { success: false, network: true, error: networkError() }; }
  }
  window.cashkeeper = Object.assign(window.cashkeeper || {}, { action: action });

  function clearErrors(form) {
    for (const slot of form.querySelectorAll('[data-error-for]')) slot.textContent = '';
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
    const general = form.querySelector('.form-error');
    if (general) { general.textContent = ''; general.hidden = true; }
  }

  // A field folded away (in a closed <details>, or a part of the form
  // shown only when needed) is opened, so that it can be seen and focused.
  function reveal(el) {
    for (let up = el.parentElement; up; up = up.parentElement) {
      if (up.tagName === 'DETAILS') up.open = true;
      if (up.hidden) up.hidden = false;
    }
  }

  function showError(form, message) {
    const m = /^([A-Za-z_][\w.]*): (.*)$/.exec(message || '');
    if (m) {
      const slot = form.querySelector('[data-error-for="' + m[1] + '"]');
      const field = form.elements.namedItem(m[1]);
      if (slot) {
        reveal(slot);
        slot.textContent = m[2];
        if (field && field.setAttribute) {
          field.setAttribute('aria-invalid', 'true');
          if (field.focus) field.focus();
        }
        return;
      }
      // No place beside the field: name it as the form labels it, or not
      // at all (an internal name means nothing to people).
      const label = field && field.id && form.querySelector('label[for="' + field.id + '"]');
      message = label ? label.textContent.trim() + ': ' + m[2] : m[2];
    }
    const general = form.querySelector('.form-error');
    if (general) { general.textContent = message; general.hidden = false; }
    else window.alert(message);
  }

  // Every field the browser finds wrong (empty but required, a date or an
  // email that is none), at once, each beside its field in the page's
  // language; the first one gets the focus. The forms leave this to the
  // script (novalidate), since the browser's own bubbles show one field at
  // a time, in the browser's language. Answers whether all are right.
  function checkFields(form) {
    const texts = document.body.dataset;
    let first = null;
    const general = [];
    for (const el of form.elements) {
      if (!el.name || !el.willValidate || el.validity.valid) continue;
      // An email address's form is the server's to judge: the browser's
      // check refuses letters such as é before the @, which it accepts.
      if (el.type === 'email' && !el.validity.valueMissing) continue;
      const text = el.validity.valueMissing ? texts.msgRequired : texts.msgInvalid;
      const slot = form.querySelector('[data-error-for="' + el.name + '"]');
      el.setAttribute('aria-invalid', 'true');
      if (!first) first = el;
      if (slot) { slot.textContent = text; continue; }
      const label = el.id && form.querySelector('label[for="' + el.id + '"]');
      general.push((label ? label.textContent.trim() + ': ' : '') + text);
    }
    if (general.length) {
      const box = form.querySelector('.form-error');
      if (box) { box.textContent = general.join(' · '); box.hidden = false; }
    }
    if (first && first.focus) first.focus();
    return !first;
  }
  for (const f of document.querySelectorAll('form[data-action]')) f.noValidate = true;

  function showSuccess(form) {
    const scope = form.parentElement || document;
    const ok = scope.querySelector('.form-success');
    if (ok) { ok.textContent = ok.dataset.text || ''; ok.hidden = false; }
  }

  // A short "saved" note, read out by screen readers, in the page's flow so
  // that it covers nothing: beside the buttons of the form that saved and
  // stays open ("save and add another"), or, after a save that reloads the
  // page, under the new page's heading.
  function toast(text, form) {
    let box = document.querySelector('.toast');
    if (!box) {
      box = document.createElement('p');
      box.className = 'toast';
      box.setAttribute('role', 'status');
    }
    const buttons = form && form.querySelector('.buttons');
    const main = document.querySelector('main');
    const heading = main && main.querySelector('h1');
    if (buttons) buttons.after(box);
    else if (heading) heading.after(box);
    else if (main) main.prepend(box);
    else document.body.appendChild(box);
    box.textContent = text;
    box.hidden = false;
    clearTimeout(box.timer);
    // Beside a form's buttons it goes after a while (what is below moves
    // up); under the heading it stays, so that nothing jumps while the
    // page is in use.
    if (buttons) box.timer = setTimeout(function () { box.hidden = true; }, 4000);
  }
  let flash = null;
  try { flash = window.sessionStorage.getItem('cashkeeper.flash'); window.sessionStorage.removeItem('cashkeeper.flash'); } catch (_) { /* private mode */ }
  if (flash) toast(flash);

  // "Save and add another": the form stays for the next entry, keeping
  // its date, account and currency.
  const KEEP = ['date', 'accountId', 'currency'];
  function readyForAnother(form) {
    for (const el of form.elements) {
      if (!el.name || KEEP.indexOf(el.name) >= 0 || el.type === 'hidden' || el.type === 'submit') continue;
      if (el.tagName === 'SELECT') el.selectedIndex = 0;
      else if (el.type === 'checkbox' || el.type === 'radio') el.checked = el.defaultChecked;
      else el.value = '';
    }
    const category = form.elements.namedItem('categoryId');
    if (category) delete category.dataset.touched;
    const hint = form.querySelector('.merchant-hint');
    if (hint) hint.textContent = '';
    // The cursor goes to the first field one types into (not a receipt
    // scan's file input), so a phone's keyboard stays up for the next one.
    const first = form.querySelector(TYPED);
    if (first) first.focus();
  }
  const TYPED = 'input:not([type]), input[type=text], input[type=search], input[type=number], textarea';
  // Pressing "save and add another" leaves the cursor in its field: a
  // button that took the focus would close a phone's keyboard.
  document.addEventListener('mousedown', function (ev) {
    if (ev.target.closest && ev.target.closest('button[data-another]')) ev.preventDefault();
  });

  async function send(form, submitter) {
    clearErrors(form);
    if (!checkFields(form)) return;
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
    const button = form.querySelector('[type=submit]');
    form.setAttribute('aria-busy', 'true');
    if (button) button.disabled = true;
    let body;
    try {
      const res = await fetch('/actions/' + encodeURIComponent(form.dataset.action), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        credentials: 'same-origin',
        body: JSON.stringify(collect(form)),
      });
      try { body = await res.json(); } catch (_) { body = { success: false, error: networkError() }; }
      if (res.status === 401 && form.dataset.action !== 'login') { window.location.assign('/login'); return; }
    } catch (_) {
      body = { success: false, error: networkError() };
    } finally {
      form.removeAttribute('aria-busy');
      if (button) button.disabled = false;
    }
    if (!body.success) {
      // Every field error the server found (`errors`), the first focused
      // last so that it keeps the focus.
      (body.errors || [body.error]).slice().reverse().forEach(function (e) { showError(form, e); });
      return;
    }
    rememberAccounts(form);
    if (body.data && body.data.totpRequired && form.dataset.secondStep) {
      const next = document.querySelector(form.dataset.secondStep);
      if (next) {
        next.elements.namedItem('challenge').value = body.data.challenge;
        form.hidden = true;
        for (const el of document.querySelectorAll('[data-first-step]')) el.hidden = true;
        next.hidden = false;
        next.elements.namedItem('code').focus();
        return;
      }
    }
    if (form.afterSave) {
      try { await form.afterSave(body.data); } catch (_) { /* the record is saved; extras are best effort */ }
    }
    if (submitter && submitter.dataset.another !== undefined) {
      readyForAnother(form);
      if (form.dataset.flash) toast(form.dataset.flash, form);
      return;
    }
    if (form.dataset.flash && (form.dataset.redirect || form.dataset.reload !== undefined)) {
      try { window.sessionStorage.setItem('cashkeeper.flash', form.dataset.flash); } catch (_) { /* private mode */ }
    }
    if (form.dataset.redirect) { window.location.assign(form.dataset.redirect); return; }
    if (form.dataset.reload !== undefined) { window.location.reload(); return; }
    if (form.dataset.done === 'hide') form.hidden = true;
    if (form.dataset.done === 'reset') form.reset();
    showSuccess(form);
    if (form.dataset.tokenOutput && body.data && body.data.token) {
      const box = document.querySelector(form.dataset.tokenOutput);
      if (box) {
        box.querySelector('code').textContent = body.data.token;
        box.hidden = false;
      }
    }
    form.dispatchEvent(new CustomEvent('action:done', { detail: body.data, bubbles: true }));
  }

  // The account a new entry's form starts with: the one last chosen in
  // that kind of form (in this browser), said under the select, else the
  // page's default (the first checking account). Forms that edit a record
  // keep its account.
  const ACCOUNT_FIELDS = ['accountId', 'fromAccountId', 'toAccountId'];
  function accountKey(form, name) { return 'cashkeeper.account.' + form.dataset.action + '.' + name; }
  function rememberAccounts(form) {
    if (!/^create/.test(form.dataset.action || '')) return;
    for (const name of ACCOUNT_FIELDS) {
      const el = form.elements.namedItem(name);
      if (el && el.tagName === 'SELECT' && el.value) {
        try { window.localStorage.setItem(accountKey(form, name), el.value); } catch (_) { /* private mode */ }
      }
    }
  }
  // A form that starts on the account last chosen in it, not on the
  // page's default, says so under the select until another is chosen.
  function lastUsedHint(select) {
    const words = document.body.dataset.msgLastUsed;
    const option = select.options[select.selectedIndex];
    if (!words || !option) return;
    const hint = document.createElement('p');
    hint.className = 'hint account-hint';
    hint.id = select.id + '-last-used';
    hint.textContent = words.replace('{account}', option.textContent.replace(/ \([A-Z]{3}\)$/, ''));
    select.after(hint);
    select.setAttribute('aria-describedby', (select.getAttribute('aria-describedby') + ' ' + hint.id).trim());
    select.addEventListener('change', function () { hint.hidden = true; }, { once: true });
  }
  for (const form of document.querySelectorAll('form[data-action^="create"]')) {
    for (const name of ACCOUNT_FIELDS) {
      const el = form.elements.namedItem(name);
      if (!el || el.tagName !== 'SELECT') continue;
      let saved = null;
      try { saved = window.localStorage.getItem(accountKey(form, name)); } catch (_) { /* private mode */ }
      if (!saved || saved === el.value || !Array.from(el.options).some(function (o) { return o.value === saved; })) continue;
      el.value = saved;
      lastUsedHint(el);
    }
    const from = form.elements.namedItem('fromAccountId');
    const to = form.elements.namedItem('toAccountId');
    if (from && to && from.value === to.value) {
      const other = Array.from(to.options).find(function (o) { return o.value && o.value !== from.value; });
      if (other) to.value = other.value;
    }
  }

  // Editing a record (?edit=…#record-form): the cursor goes to the form's
  // first field, so the form that opened is where the eye and keys are.
  const editForm = document.querySelector('#record-form form[data-action^="update"]');
  if (editForm) {
    const first = editForm.querySelector('input:not([type=hidden]), select, textarea');
    // After the load: the browser's own scrolling to #record-form comes first.
    if (first) window.addEventListener('load', function () { first.focus(); });
  }

  // The form of a new record behind its "+ New" button: opened, the
  // cursor goes to its first field one types into (not a receipt scan's
  // file input), unless a link already put it in a field (?focus=).
  for (const d of document.querySelectorAll('details.new-record')) {
    d.addEventListener('toggle', function () {
      if (!d.open || d.contains(document.activeElement)) return;
      const first = d.querySelector('form ' + TYPED.split(', ').join(', form ') + ', form select');
      if (first) first.focus();
    });
  }

  // Charts wider than a phone scroll sideways (charts.css): they open on
  // their newest end (months run left to right), and say that they scroll.
  // A chart with a value axis scrolls its drawing only (.chart-scroll).
  function scrollCharts() {
    for (const chart of document.querySelectorAll('.chart')) {
      const box = chart.querySelector('.chart-scroll') || chart;
      const scrolls = box.scrollWidth > box.clientWidth + 1;
      let hint = chart.querySelector('.chart-scroll-hint');
      if (scrolls && !hint && document.body.dataset.msgChartScroll) {
        hint = document.createElement('p');
        hint.className = 'hint chart-scroll-hint';
        hint.textContent = document.body.dataset.msgChartScroll;
        const caption = chart.querySelector('figcaption');
        if (caption) caption.appendChild(hint);
      }
      if (hint) hint.hidden = !scrolls;
      // A drawing that scrolls in a box of its own is reached by the
      // keyboard (the arrow keys scroll it); one that fits is no tab stop.
      if (box !== chart) {
        if (scrolls) box.tabIndex = 0;
        else box.removeAttribute('tabindex');
      }
      if (scrolls && !chart.dataset.scrolled) {
        box.scrollLeft = box.scrollWidth;
        chart.dataset.scrolled = '1';
      }
    }
  }
  scrollCharts();
  window.addEventListener('resize', scrollCharts);

  // A link to a new entry's form (?focus=amount#record-form, the
  // dashboard's "+ Expense" and next steps): the cursor goes to that field
  // of the create form, which opens if it is folded away.
  const wanted = new URLSearchParams(window.location.search).get('focus');
  const createForm = wanted && document.querySelector('#record-form form[data-action^="create"]');
  const target = createForm && createForm.elements.namedItem(wanted);
  if (target && target.focus) {
    reveal(target);
    // The form's "+ New" toggle in sight below the sticky top bar, not
    // under it (where a finger could not reach it), and the field in use.
    const toggle = target.closest('details.new-record');
    const inSight = function () {
      if (!toggle) return;
      const bar = document.querySelector('.topbar');
      const below = bar && getComputedStyle(bar).position === 'sticky' ? bar.getBoundingClientRect().bottom : 0;
      const top = toggle.getBoundingClientRect().top;
      if (top < below + 8) window.scrollBy(0, top - below - 8);
    };
    target.focus();
    inSight();
    window.addEventListener('load', function () {
      if (document.activeElement !== target) target.focus({ preventScroll: true });
      inSight();
    });
  }

  // Phones stack each table row into lines (app.css); every cell then
  // shows its column's header as a label, so numbers are never unlabelled.
  // Cells that carry their own data-label (the import tables) keep theirs.
  for (const table of document.querySelectorAll('table.records')) {
    const heads = Array.from(table.querySelectorAll('thead th'), function (th) { return th.textContent.trim(); });
    if (!heads.length) continue;
    for (const row of table.querySelectorAll('tbody tr, tfoot tr')) {
      let col = 0;
      for (const cell of row.children) {
        const label = heads[col];
        if (label && !cell.hasAttribute('data-label')) cell.setAttribute('data-col', label);
        col += cell.colSpan || 1;
      }
    }
  }

  // Times the server wrote in UTC (<time datetime data-local>): shown in
  // the browser's own time zone, in the page's language; the UTC text
  // stays as the title.
  (function () {
    const lang = document.documentElement.lang === 'de' ? 'de-DE' : 'en-GB';
    const format = new Intl.DateTimeFormat(lang, {
      day: lang === 'de-DE' ? '2-digit' : 'numeric', month: lang === 'de-DE' ? '2-digit' : 'short', year: 'numeric',
      hour: '2-digit', minute: '2-digit',
    });
    for (const el of document.querySelectorAll('time[data-local]')) {
      const at = new Date(el.getAttribute('datetime'));
      if (isNaN(at.getTime())) continue;
      el.title = el.textContent;
      el.textContent = format.format(at);
    }
  })();

  // Two-factor setup in Settings: the secret comes back as a QR code (an
  // SVG, shown as an image) and as text; the confirmed code answers the
  // recovery codes, shown once.
  document.addEventListener('action:done', function (ev) {
    const form = ev.target;
    const box = form.closest && form.closest('[data-totp-setup]');
    if (!box) return;
    const data = ev.detail || {};
    if (form.hasAttribute('data-totp-begin')) {
      const steps = box.querySelector('.totp-steps');
      box.querySelector('.totp-qr').src = 'data:image/svg+xml;base64,' + btoa(data.qrSvg || '');
      box.querySelector('.totp-key').textContent = (data.secret || '').replace(/(.{4})/g, '$1 ').trim();
      box.querySelector('.totp-link').href = data.otpauthUrl || '#';
      form.hidden = true;
      steps.hidden = false;
      steps.querySelector('input[name=code]').focus();
    } else if (form.hasAttribute('data-totp-enable')) {
      const list = box.querySelector('.recovery-codes');
      list.replaceChildren();
      for (const code of data.recoveryCodes || []) {
        const li = document.createElement('li');
        li.textContent = code;
        list.appendChild(li);
      }
      box.querySelector('.totp-steps').hidden = true;
      // It is on now: the section no longer says it is off.
      const off = box.parentElement.querySelector('.status-off');
      if (off) off.hidden = true;
      const recovery = box.querySelector('.totp-recovery');
      recovery.hidden = false;
      recovery.focus();
    }
  });
  // "I have saved them": the page again, which says since when it is on
  // and how many codes are left (the link alone only moves to the anchor).
  document.addEventListener('click', function (ev) {
    const done = ev.target.closest && ev.target.closest('a[data-totp-done]');
    if (!done) return;
    ev.preventDefault();
    window.history.replaceState(null, '', done.getAttribute('href'));
    window.location.reload();
  });

  // Forms with data-merchant-hint: when the merchant (or, without one, the
  // name) is entered, ask which category that merchant had before and
  // pre-select it if the person has not chosen one.
  // What the server knows of a merchant (getMerchantCategoryHints), or
  // null: hints are a convenience and never block typing.
  async function merchantHints(text) {
    try {
      const res = await fetch('/actions/getMerchantCategoryHints', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        credentials: 'same-origin',
        body: JSON.stringify({ merchant: text }),
      });
      const body = await res.json();
      return body.success ? body.data : null;
    } catch (_) {
      return null;
    }
  }

  async function merchantHint(form) {
    const merchant = form.elements.namedItem('merchant');
    const name = form.elements.namedItem('name');
    const category = form.elements.namedItem('categoryId');
    const text = (merchant && merchant.value.trim()) || (name && name.value.trim()) || '';
    if (!category || !text || category.dataset.touched) return;
    const hints = await merchantHints(text);
    const hint = form.querySelector('.merchant-hint');
    // The hint is a live region: its words, once set, are read out.
    if (hints && hints.categoryId && !category.dataset.touched) {
      category.value = hints.categoryId;
      if (hint) hint.textContent = hint.dataset.text || '';
    } else if (hint) {
      hint.textContent = '';
    }
  }

  // Merchant autocomplete: as the merchant is typed, the merchants the
  // person wrote before (most used first) are offered in a datalist.
  let merchantTimer = null;
  for (const input of document.querySelectorAll('form[data-merchant-hint] input[name=merchant]')) {
    const list = document.createElement('datalist');
    list.id = (input.id || 'merchant') + '-options';
    input.after(list);
    input.setAttribute('list', list.id);
  }
  document.addEventListener('input', function (ev) {
    if (ev.target.name !== 'merchant' || !ev.target.closest('form[data-merchant-hint]')) return;
    const input = ev.target;
    const list = document.getElementById(input.getAttribute('list') || '');
    if (!list) return;
    clearTimeout(merchantTimer);
    merchantTimer = setTimeout(async function () {
      const text = input.value.trim();
      if (text.length < 2) { list.replaceChildren(); return; }
      const hints = await merchantHints(text);
      if (!hints) return;
      list.replaceChildren.apply(list, (hints.names || []).map(function (n) {
        const o = document.createElement('option');
        o.value = n;
        return o;
      }));
    }, 150);
  });

  document.addEventListener('change', function (ev) {
    const form = ev.target.closest('form[data-merchant-hint]');
    if (!form) return;
    if (ev.target.name === 'categoryId') { ev.target.dataset.touched = '1'; return; }
    if (ev.target.name === 'merchant' || ev.target.name === 'name') merchantHint(form);
  });

  // Buttons with data-copy="#selector" copy that element's text (a list's
  // items one per line).
  document.addEventListener('click', async function (ev) {
    const button = ev.target.closest('button[data-copy]');
    if (!button) return;
    const source = document.querySelector(button.dataset.copy);
    if (!source) return;
    try {
      const items = source.querySelectorAll('li');
      const text = items.length
        ? Array.from(items, function (li) { return li.textContent; }).join('\n')
        : source.textContent;
      await navigator.clipboard.writeText(text);
      button.textContent = button.dataset.copied || button.textContent;
    } catch (_) {
      const range = document.createRange();
      range.selectNodeContents(source);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
    }
  });

  // The report of an upload (data-upload) that reloaded the page: in the
  // form's .form-success, scrolled into view and focused.
  const REPORT = 'cashkeeper.report';
  (function showReport() {
    let stored = null;
    try {
      stored = JSON.parse(window.sessionStorage.getItem(REPORT) || 'null');
      window.sessionStorage.removeItem(REPORT);
    } catch (_) { /* private mode */ }
    const form = stored && stored.form && document.getElementById(stored.form);
    const box = form && form.querySelector('.form-success');
    if (!box) return;
    box.textContent = stored.text;
    box.hidden = false;
    box.tabIndex = -1;
    const show = function () {
      box.scrollIntoView({ block: 'center' });
      box.focus({ preventScroll: true });
    };
    show();
    // The browser puts a reloaded page back where it was once it has
    // loaded; the report goes on top of that.
    if (document.readyState !== 'complete') {
      window.addEventListener('load', function () { setTimeout(show, 0); }, { once: true });
    }
  })();

  // A photo over the 5 MiB a receipt may have (docs/receipts.md): a phone
  // camera's 48 or 50 megapixels are scaled down here, in the browser,
  // to at most PHOTO_SIDE pixels on the longer side and sent as a JPEG,
  // upright as the camera meant it (its EXIF orientation applied). Any
  // other file, a smaller photo, or a browser that cannot draw it, is
  // sent as it is, and the server says what it thinks of it.
  const PHOTO_BYTES = 5 * 1024 * 1024;
  const PHOTO_SIDE = 3000;
  async function scaledPhoto(file) {
    if (!file || file.size <= PHOTO_BYTES || !/^image\/(jpeg|png)$/.test(file.type)) return file;
    if (!window.createImageBitmap || !HTMLCanvasElement.prototype.toBlob) return file;
    let bitmap;
    try {
      bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
      let scale = Math.min(1, PHOTO_SIDE / Math.max(bitmap.width, bitmap.height));
      for (let i = 0; i < 6; i++) {
        const canvas = document.createElement('canvas');
        canvas.width = Math.max(1, Math.round(bitmap.width * scale));
        canvas.height = Math.max(1, Math.round(bitmap.height * scale));
        canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
        const blob = await new Promise(function (done) { canvas.toBlob(done, 'image/jpeg', 0.85); });
        if (!blob) return file;
        if (blob.size <= PHOTO_BYTES) {
          const name = file.name.replace(/\.(jpe?g|png)$/i, '') + '.jpg';
          return new File([blob], name, { type: 'image/jpeg', lastModified: file.lastModified });
        }
        scale *= 0.7;
      }
      return file;
    } catch (_) {
      return file;
    } finally {
      if (bitmap && bitmap.close) bitmap.close();
    }
  }

  async function upload(form) {
    clearErrors(form);
    const input = form.querySelector('input[type=file]');
    const files = Array.from((input && input.files) || []);
    if (!files.length) { showError(form, 'file: ' + (form.dataset.empty || 'choose a file')); return; }
    const button = form.querySelector('[type=submit]');
    form.setAttribute('aria-busy', 'true');
    if (button) button.disabled = true;
    try {
      for (const chosen of files) {
        const file = await scaledPhoto(chosen);
        const data = new FormData();
        for (const el of form.elements) {
          if (!el.name || el.type === 'file' || !el.value) continue;
          if (el.name === 'attach') {
            const i = el.value.indexOf(':');
            if (i > 0) data.append(el.value.slice(0, i), el.value.slice(i + 1));
          } else {
            data.append(el.name, el.value);
          }
        }
        data.append('file', file, file.name);
        let body;
        const res = await fetch(form.dataset.upload, { method: 'POST', body: data, credentials: 'same-origin' });
        if (res.status === 401) { window.location.assign('/login'); return; }
        try { body = await res.json(); } catch (_) { body = { error: networkError() }; }
        if (!res.ok) { showError(form, (files.length > 1 ? chosen.name + ': ' : '') + body.error); return; }
        // What the upload did, said beside the form once the page is back.
        if (body.message && form.id) {
          try { window.sessionStorage.setItem(REPORT, JSON.stringify({ form: form.id, text: body.message })); } catch (_) { /* private mode */ }
        }
      }
      window.location.reload();
    } catch (_) {
      showError(form, networkError());
    } finally {
      form.removeAttribute('aria-busy');
      if (button) button.disabled = false;
    }
  }

  // A receipt-scan button (data-scan="/api/receipt-scan" in a form): the
  // photo chosen is read by the server's vision model, the answer fills the
  // form's fields, and once the form is saved the photo is kept as a
  // document of the new record.
  document.addEventListener('change', async function (ev) {
    const input = ev.target;
    if (input.type !== 'file' || !input.closest('[data-scan]')) return;
    const scan = input.closest('[data-scan]');
    const form = scan.closest('form');
    const chosen = input.files && input.files[0];
    const status = scan.querySelector('.scan-status');
    if (!chosen || !form) return;
    clearErrors(form);
    if (status) {
      status.textContent = scan.dataset.reading || '…';
      status.classList.remove('error');
      status.removeAttribute('role');
      status.hidden = false;
    }
    form.setAttribute('aria-busy', 'true');
    let body;
    const file = await scaledPhoto(chosen);
    try {
      const data = new FormData();
      data.append('file', file, file.name);
      const res = await fetch(scan.dataset.scan, { method: 'POST', body: data, credentials: 'same-origin' });
      if (res.status === 401) { window.location.assign('/login'); return; }
      try { body = await res.json(); } catch (_) { body = { success: false, error: networkError() }; }
    } catch (_) {
      body = { success: false, error: networkError() };
    } finally {
      form.removeAttribute('aria-busy');
    }
    if (!body.success) {
      // Said where the person looks: in the status's place beside the
      // button, scrolled into view and focused. The field's name in front
      // ("file: …") means nothing there.
      if (!status) { showError(form, body.error); return; }
      status.textContent = String(body.error || networkError()).replace(/^[A-Za-z_][\w.]*: /, '');
      status.classList.add('error');
      status.setAttribute('role', 'alert');
      status.tabIndex = -1;
      status.hidden = false;
      status.scrollIntoView({ block: 'nearest' });
      status.focus({ preventScroll: true });
      input.value = '';
      return;
    }
    if (status) status.hidden = true;
    const r = body.data;
    const set = function (name, value) {
      const el = form.elements.namedItem(name);
      if (el && value !== null && value !== undefined && value !== '') el.value = value;
    };
    set('name', r.merchant);
    set('merchant', r.merchant);
    set('amount', localAmount(r.total));
    set('currency', r.currency);
    set('date', r.date);
    if (r.categoryId) { set('categoryId', r.categoryId); }
    const notes = form.elements.namedItem('notes');
    // The items, one a line, in the user's number style (the service words them).
    if (notes && !notes.value && r.notes) notes.value = r.notes;
    // Keep the photo with the record once it is saved.
    form.afterSave = async function (saved) {
      if (!saved || !saved.id) return;
      const data = new FormData();
      data.append(scan.dataset.attach || 'dailyExpenseId', saved.id);
      data.append('file', file, file.name);
      await fetch('/api/documents', { method: 'POST', body: data, credentials: 'same-origin' });
    };
    const first = form.elements.namedItem('amount');
    if (first && first.focus) first.focus();
  });

  // Files dropped on a form's .dropzone are chosen as if picked.
  document.addEventListener('dragover', function (ev) {
    const zone = ev.target.closest && ev.target.closest('.dropzone');
    if (!zone) return;
    ev.preventDefault();
    zone.classList.add('over');
  });
  document.addEventListener('dragleave', function (ev) {
    const zone = ev.target.closest && ev.target.closest('.dropzone');
    if (zone) zone.classList.remove('over');
  });
  document.addEventListener('drop', function (ev) {
    const zone = ev.target.closest && ev.target.closest('.dropzone');
    if (!zone) return;
    ev.preventDefault();
    zone.classList.remove('over');
    const input = zone.querySelector('input[type=file]');
    if (input && ev.dataTransfer && ev.dataTransfer.files.length) {
      input.files = ev.dataTransfer.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }
  });
  // A dropzone names the files chosen.
  document.addEventListener('change', function (ev) {
    if (ev.target.type !== 'file') return;
    const zone = ev.target.closest('.dropzone');
    const label = zone && zone.querySelector('span');
    if (!label) return;
    if (!label.dataset.text) label.dataset.text = label.textContent;
    const names = Array.from(ev.target.files || []).map(function (f) { return f.name; });
    label.textContent = names.length ? names.join(', ') : label.dataset.text;
  });

  document.addEventListener('submit', function (ev) {
    const uploadForm = ev.target.closest('form[data-upload]');
    if (uploadForm) { ev.preventDefault(); upload(uploadForm); return; }
    const form = ev.target.closest('form[data-action]');
    if (!form) return;
    ev.preventDefault();
    send(form, ev.submitter);
  });
})();

// Payment reminders: the settings toggle runs the browser's push flow
// (SPEC.md section 6): support, permission, the server's key, subscribe,
// and POST the subscription; turning off unsubscribes and DELETEs it.
(function () {
  const box = document.querySelector('[data-push-toggle]');
  if (!box) return;
  const state = box.querySelector('.push-state');
  const button = box.querySelector('button');
  const say = (key) => { state.textContent = box.dataset[key] || ''; };

  function keyBytes(base64url) {
    const pad = '='.repeat((4 - (base64url.length % 4)) % 4);
    const raw = atob((base64url + pad).replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }

  async function current() {
    const reg = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
    return { reg, sub: await reg.pushManager.getSubscription() };
  }

  async function show() {
    const { sub } = await current();
    say(sub ? 'textActive' : (Notification.permission === 'denied' ? 'textDenied' : 'textInactive'));
    button.textContent = sub ? box.dataset.labelOff : box.dataset.labelOn;
    button.hidden = false;
    button.dataset.on = sub ? '1' : '';
  }

  async function turnOn() {
    const permission = await Notification.requestPermission();
    if (permission !== 'granted') { say('textDenied'); return; }
    const res = await fetch('/api/push/vapid-public-key', { credentials: 'same-origin' });
    const body = await res.json().catch(() => ({}));
    if (!res.ok || !body.key) { say('textUnconfigured'); return; }
    const { reg } = await current();
    const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(body.key) });
    const saved = await fetch('/api/push/subscribe', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(sub),
    });
    if (!saved.ok) {
      const err = await saved.json().catch(() => ({}));
      await sub.unsubscribe();
      if (err.error) state.textContent = err.error; else say('textFailed');
      return;
    }
    await show();
  }

  async function turnOff() {
    const { sub } = await current();
    if (sub) {
      await fetch('/api/push/subscribe', {
        method: 'DELETE', credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ endpoint: sub.endpoint }),
      });
      await sub.unsubscribe();
    }
    await show();
  }

  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    say('textUnsupported');
    return;
  }
  button.addEventListener('click', async function () {
    button.disabled = true;
    try { await (button.dataset.on ? turnOff() : turnOn()); }
    // The browser's own message ("Registration failed - push service
    // error") is English whatever the page's language.
    catch (_) { say('textFailed'); }
    finally { button.disabled = false; }
  });
  show().catch(function () { say('textUnsupported'); });
})();

// The one-time expense form: once a category is chosen, its budget this
// month ("Budget: noch 124,50 € von 400,00 €"), asked of listBudgets the
// first time it is needed and filled into the page's wording.
(function () {
  for (const hint of document.querySelectorAll('.budget-hint[data-left]')) {
    const form = hint.closest('form');
    const select = form && form.querySelector('select[name=categoryId]');
    if (!select) continue;
    let budgets = null;
    const money = function (amount, currency) {
      const lang = document.documentElement.lang === 'de' ? 'de-DE' : 'en-GB';
      return new Intl.NumberFormat(lang, { style: 'currency', currency: currency }).format(Math.abs(amount));
    };
    const show = async function () {
      if (!select.value) { hint.hidden = true; return; }
      if (!budgets) {
        try {
          const res = await fetch('/actions/listBudgets', {
            method: 'POST', credentials: 'same-origin',
            headers: { 'Content-Type': 'application/json' }, body: '{}',
          });
          const body = await res.json();
          budgets = body.success ? body.data : { budgets: [] };
        } catch (e) { return; }
      }
      const b = budgets.budgets.find(function (x) { return x.categoryId === select.value; });
      if (!b) { hint.hidden = true; return; }
      const template = b.remaining < 0 ? hint.dataset.over : hint.dataset.left;
      hint.textContent = template
        .replace('{remaining}', money(b.remaining, budgets.currency))
        .replace('{available}', money(b.available, budgets.currency));
      hint.hidden = false;
    };
    select.addEventListener('change', show);
    form.addEventListener('reset', function () { setTimeout(show, 0); });
    show();
  }
})();
