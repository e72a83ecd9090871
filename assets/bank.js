// cashkeeper: the bank sync pages (/bank, /bank/connect, /bank/{id};
// docs/bank-sync.md). The forms are app.js's (data-action); here:
//   - the bank search of the connect form: findBanks as the name, bank code
//     or BIC is typed, the banks found as buttons; one chosen shows its
//     name and sends its code (data-value), and asks for the bank's address
//     only when the table has none. A bank code typed without the list is
//     sent as typed.
//   - where a connection goes after a step: connectBank to the connection's
//     page, which shows what the bank asks next (a TAN method, a TAN, an
//     approval) or its accounts to link;
//   - the waiting screen of an approval in the bank's app: getBankConnection
//     asked again and again, less often the longer it takes, until the
//     state is no longer `tan`/`syncing`; then the page goes on by itself,
//     or says why the approval failed;
//   - "Fetch now" (syncBank): its progress, then links to the batches it
//     staged in the import review, or the TAN step when the bank asks;
//   - linking a bank account to "a new account": the account is made with
//     the bank account's name and currency (createAccount), then linked;
//   - the automatic fetch asks for the PIN when none is saved.
// Every refusal shows next to its field or button, and is focused.
'use strict';

(function () {
  const root = document.querySelector('[data-bank]');
  if (!root) return;
  const T = JSON.parse(root.dataset.texts || '{}');
  const lang = document.documentElement.lang === 'de' ? 'de-DE' : 'en-GB';

  // Actions go through app.js's one helper (loaded before this script).
  const action = window.cashkeeper.action;

  function say(el, text) {
    if (el && el.textContent !== text) el.textContent = text;
    if (el) el.hidden = !text;
  }

  // A refusal said beside a button (app.js fills the form's .form-error):
  // focused, so that the keyboard and a screen reader are where it is.
  const errors = new MutationObserver(function (changes) {
    for (const change of changes) {
      const box = change.target;
      if (box.hidden || !box.textContent) continue;
      box.tabIndex = -1;
      box.scrollIntoView({ block: 'nearest' });
      box.focus({ preventScroll: true });
    }
  });
  for (const box of root.querySelectorAll('.form-error')) {
    errors.observe(box, { attributes: true, attributeFilter: ['hidden'] });
  }

  // While a form waits for the bank, its status says so; done, it is empty.
  for (const form of root.querySelectorAll('form[data-busy-text]')) {
    const status = form.querySelector('.bank-busy');
    new MutationObserver(function () {
      say(status, form.getAttribute('aria-busy') === 'true' ? form.dataset.busyText : '');
    }).observe(form, { attributes: true, attributeFilter: ['aria-busy'] });
  }

  // ---- the bank search ----------------------------------------------------

  const search = root.querySelector('input[data-bank-search]');
  if (search) {
    const form = search.form;
    const list = root.querySelector('.bank-results');
    const status = root.querySelector('.bank-search-status');
    const chosen = root.querySelector('.bank-chosen');
    const urlField = form.querySelector('.bank-url');
    let timer = null;
    let asked = 0;

    const showUrl = function (show) {
      urlField.hidden = !show;
      const input = urlField.querySelector('input');
      if (!show) input.value = '';
    };

    const choose = function (bank, typed) {
      if (!typed) search.value = bank.name;
      search.dataset.value = bank.bankCode;
      search.removeAttribute('aria-invalid');
      list.replaceChildren();
      list.hidden = true;
      say(status, '');
      say(chosen, T.chosen.replace('{bank}', [bank.name, bank.city].filter(Boolean).join(', ') + ' · BLZ ' + bank.bankCode));
      showUrl(!bank.url);
      if (typed) return;
      const next = bank.url ? form.elements.namedItem('loginName') : urlField.querySelector('input');
      if (next) next.focus();
    };

    const show = function (banks) {
      list.replaceChildren.apply(list, banks.map(function (bank) {
        const li = document.createElement('li');
        const button = document.createElement('button');
        button.type = 'button';
        const name = document.createElement('span');
        name.className = 'bank-name';
        name.textContent = bank.name;
        const where = document.createElement('small');
        where.className = 'muted';
        where.textContent = [bank.city, 'BLZ ' + bank.bankCode, bank.bic].filter(Boolean).join(' · ');
        button.append(name, where);
        button.addEventListener('click', function () { choose(bank); });
        li.appendChild(button);
        return li;
      }));
      list.hidden = !banks.length;
      say(status, banks.length ? T.found.replace('{count}', new Intl.NumberFormat(lang).format(banks.length)) : T.none);
    };

    search.addEventListener('input', function () {
      delete search.dataset.value;
      say(chosen, '');
      if (!urlField.querySelector('input').value) urlField.hidden = true;
      clearTimeout(timer);
      const query = search.value.trim();
      if (query.length < 2) { list.replaceChildren(); list.hidden = true; say(status, ''); return; }
      timer = setTimeout(async function () {
        const mine = ++asked;
        const body = await action('findBanks', { query: query });
        if (mine !== asked) return; // a later search answers
        if (!body.success) { say(status, body.error || ''); return; }
        const banks = body.data || [];
        // A bank code typed whole: that bank is chosen as it stands, and
        // one the table does not know needs its address.
        if (/^\d{8}$/.test(query)) {
          const exact = banks.find(function (b) { return b.bankCode === query; });
          if (exact) { choose(exact, true); return; }
          if (!banks.length) showUrl(true);
        }
        show(banks);
      }, 200);
    });
    // The arrow keys move from the field through the banks found.
    search.addEventListener('keydown', function (ev) {
      if (ev.key !== 'ArrowDown' || list.hidden) return;
      const first = list.querySelector('button');
      if (first) { ev.preventDefault(); first.focus(); }
    });
    list.addEventListener('keydown', function (ev) {
      if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp' && ev.key !== 'Escape') return;
      const buttons = Array.from(list.querySelectorAll('button'));
      const at = buttons.indexOf(document.activeElement);
      ev.preventDefault();
      if (ev.key === 'Escape') { search.focus(); return; }
      const next = at + (ev.key === 'ArrowDown' ? 1 : -1);
      if (next < 0) search.focus();
      else if (next < buttons.length) buttons[next].focus();
    });

    // Connected (whatever the bank asks next): the connection's page.
    form.addEventListener('action:done', function (ev) {
      const conn = ev.detail || {};
      if (conn.id) window.location.assign('/bank/' + encodeURIComponent(conn.id));
    });
  }

  // ---- the waiting screen -------------------------------------------------

  const wait = root.querySelector('[data-bank-wait]');
  if (wait) {
    const id = wait.dataset.bankWait;
    const status = wait.querySelector('.bank-wait-status');
    const failure = wait.querySelector('.form-error');
    const after = wait.querySelector('.bank-wait-failed');
    const started = Date.now();
    let delay = 1000;

    const fail = function (text) {
      say(status, '');
      wait.removeAttribute('aria-busy');
      failure.textContent = text || T.failed;
      failure.hidden = false;
      if (after) after.hidden = false;
    };

    const poll = async function () {
      const body = await action('getBankConnection', { id: id });
      if (!body.success) {
        if (body.network) { say(status, T.network); return again(); }
        return fail(body.error);
      }
      const conn = body.data || {};
      if (conn.state === 'tan' || conn.state === 'syncing') {
        say(status, conn.state === 'syncing' ? T.syncing
          : (Date.now() - started > 15000 ? T.still : T.waiting));
        return again();
      }
      if (conn.state === 'ready' && !conn.lastError) {
        say(status, T.done);
        window.location.reload();
        return;
      }
      if (conn.state === 'ready' || conn.state === 'choose_tan_method') {
        // The sync or the connect failed on the way: the page says why,
        // beside the connection.
        if (conn.lastError && conn.lastError !== wait.dataset.errorBefore) return fail(conn.lastError);
        window.location.reload();
        return;
      }
      fail(conn.lastError);
    };
    // Asked again less often the longer it takes: from every second to
    // every five.
    const again = function () {
      setTimeout(poll, delay);
      delay = Math.min(delay * 1.5, 5000);
    };
    wait.setAttribute('aria-busy', 'true');
    again();
  }

  // ---- a connection: fetch, link, automatic fetch -------------------------

  const count = function (batch) {
    const c = batch.counts || {};
    return (c.new || 0) + (c.matched || 0) + (c.conflict || 0) + (c.error || 0);
  };

  for (const form of root.querySelectorAll('form[data-action=syncBank]')) {
    const panel = form.closest('.bank-connection');
    const result = panel.querySelector('.bank-sync-result');
    const names = JSON.parse(panel.dataset.accounts || '{}');
    form.addEventListener('action:done', function (ev) {
      const answer = ev.detail || {};
      if (answer.state === 'tan' || answer.state === 'choose_tan_method') {
        window.location.assign('/bank/' + encodeURIComponent(panel.dataset.id));
        return;
      }
      const pin = form.elements.namedItem('pin');
      if (pin) pin.value = '';
      // The error of the last fetch is over.
      for (const old of panel.querySelectorAll('.bank-last-error')) old.hidden = true;
      const batches = (answer.batches || []).filter(function (b) { return count(b) > 0; });
      const head = document.createElement('p');
      head.textContent = batches.length ? T.syncDone : T.syncNothing;
      const list = document.createElement('ul');
      list.className = 'bank-batches';
      for (const b of batches) {
        const li = document.createElement('li');
        li.append((names[b.accountId] || '') + ': ' + T.bookings.replace('{count}', new Intl.NumberFormat(lang).format(count(b))) + ' ');
        const a = document.createElement('a');
        a.href = '/import?batch=' + encodeURIComponent(b.batchId);
        a.textContent = T.review;
        li.appendChild(a);
        list.appendChild(li);
      }
      result.replaceChildren(head);
      if (batches.length) result.appendChild(list);
      result.hidden = false;
      result.tabIndex = -1;
      result.focus();
    });
  }

  // "Create a new account" in a link's select: made first, then linked.
  for (const form of root.querySelectorAll('form[data-action=linkBankAccount]')) {
    form.addEventListener('submit', async function (ev) {
      const select = form.elements.namedItem('accountId');
      if (!select || select.value !== 'new') return;
      ev.preventDefault();
      ev.stopPropagation();
      const general = form.querySelector('.form-error');
      general.hidden = true;
      form.setAttribute('aria-busy', 'true');
      const made = await action('createAccount', {
        name: form.dataset.name, type: 'checking', currency: form.dataset.currency, balance: 0,
      });
      form.removeAttribute('aria-busy');
      if (!made.success) {
        general.textContent = String(made.error || T.network).replace(/^[A-Za-z_][\w.]*: /, '');
        general.hidden = false;
        return;
      }
      const option = document.createElement('option');
      option.value = made.data.id;
      option.textContent = form.dataset.name;
      select.appendChild(option);
      select.value = made.data.id;
      form.requestSubmit();
    }, true);
  }

  // Turning the automatic fetch on without a saved PIN asks for it.
  for (const form of root.querySelectorAll('form[data-action=setBankSync]')) {
    const box = form.elements.namedItem('autoSync');
    const needed = form.querySelector('.bank-pin-needed');
    if (!box || !needed) continue;
    const update = function () {
      const ask = box.checked && !box.defaultChecked;
      needed.hidden = !ask;
      for (const el of needed.querySelectorAll('input')) el.disabled = !ask;
    };
    box.addEventListener('change', function () {
      update();
      if (!needed.hidden) needed.querySelector('input[name=pin]').focus();
    });
    update();
  }
})();
