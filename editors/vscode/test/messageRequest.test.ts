import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chosenAction, dialogPlan, MessageActionItem, registerMessageRequest, ShowMessageRequestParams } from '../src/messageRequest';

const trust: ShowMessageRequestParams = {
  type: 2,
  message: 'Trust the project /w/p?\nIt wants to run:\n  sh -c "echo hi"\n',
  actions: [{ title: 'Trust' }, { title: 'Not now' }],
};

test('dialogPlan: first line is the title, the rest the detail, actions become buttons', () => {
  assert.deepEqual(dialogPlan(trust), {
    severity: 'warning',
    title: 'Trust the project /w/p?',
    detail: 'It wants to run:\n  sh -c "echo hi"',
    buttons: ['Trust', 'Not now'],
  });
  assert.deepEqual(dialogPlan({ type: 1, message: 'one line' }), { severity: 'error', title: 'one line', detail: undefined, buttons: [] });
  assert.equal(dialogPlan({ type: 3, message: 'x' }).severity, 'info');
  assert.equal(dialogPlan({ type: 4, message: 'x' }).severity, 'info');
});

test('dialogPlan: the exec question keeps the server order, Reject first, so the focused button is the safe one', () => {
  const exec: ShowMessageRequestParams = {
    type: 2,
    message: 'Run this command? It may change files in the workspace.\n\n  cp calc.go calc_copy.go\n\nin /w/p',
    actions: [{ title: 'Reject' }, { title: 'Run' }, { title: 'Always allow "cp"' }],
  };
  assert.deepEqual(dialogPlan(exec).buttons, ['Reject', 'Run', 'Always allow "cp"']);
});

test('chosenAction: the clicked title maps back to the server action item; dismissed is null', () => {
  const withData: ShowMessageRequestParams = { type: 3, message: 'm', actions: [{ title: 'Run', id: 7 }, { title: 'Cancel' }] };
  assert.deepEqual(chosenAction(withData, 'Run'), { title: 'Run', id: 7 });
  assert.equal(chosenAction(withData, undefined), null);
  assert.equal(chosenAction(withData, 'Something else'), null);
});

// fakeWindow records the dialog shown and clicks the given button (undefined: dismissed).
function fakeWindow(click: string | undefined) {
  const shown: { fn: string; message: string; options: unknown; items: string[] }[] = [];
  const make =
    (fn: string) =>
    async (message: string, options: unknown, ...items: string[]) => {
      shown.push({ fn, message, options, items });
      return click;
    };
  return {
    shown,
    window: { showErrorMessage: make('error'), showWarningMessage: make('warning'), showInformationMessage: make('info') } as never,
  };
}

async function ask(click: string | undefined): Promise<{ answer: MessageActionItem | null; shown: ReturnType<typeof fakeWindow>['shown']; logged: string[] }> {
  const w = fakeWindow(click);
  let handler: ((p: ShowMessageRequestParams) => Promise<MessageActionItem | null>) | undefined;
  let method = '';
  const logged: string[] = [];
  registerMessageRequest(
    {
      onRequest: (m, h) => {
        method = m;
        handler = h;
        return { dispose() {} };
      },
    },
    w.window,
    { info: (s) => logged.push(s) },
  );
  assert.equal(method, 'window/showMessageRequest');
  assert.ok(handler);
  const answer = await handler(trust);
  return { answer, shown: w.shown, logged };
}

test('registerMessageRequest: a modal warning dialog with the actions; the chosen action is the answer', async () => {
  const { answer, shown, logged } = await ask('Trust');
  assert.deepEqual(answer, { title: 'Trust' });
  assert.equal(shown.length, 1);
  assert.equal(shown[0].fn, 'warning');
  assert.equal(shown[0].message, 'Trust the project /w/p?');
  assert.deepEqual(shown[0].options, { modal: true, detail: 'It wants to run:\n  sh -c "echo hi"' });
  assert.deepEqual(shown[0].items, ['Trust', 'Not now']);
  assert.deepEqual(logged, ['asked "Trust the project /w/p?": Trust']);
});

test('registerMessageRequest: a dismissed dialog answers null', async () => {
  const { answer, logged } = await ask(undefined);
  assert.equal(answer, null);
  assert.deepEqual(logged, ['asked "Trust the project /w/p?": dismissed']);
});
