-- The settle rule of catbuddy/diagnostics answers, driven by a fake clock:
-- time moves only when the test's sleep moves it, so the bounds are checked
-- exactly, without timing.
local request = require('catbuddy.diagnostics_request')

-- fake returns a clock starting at t0 whose sleep(ms) calls on_sleep(ms,
-- clock) (which moves clock.t and may change the buffer's times), and
-- counts the sleeps.
local function fake(t0, on_sleep)
  local c = { t = t0, sleeps = 0 }
  c.now = function()
    return c.t
  end
  c.sleep = function(ms)
    c.sleeps = c.sleeps + 1
    on_sleep(ms, c)
  end
  return c
end

-- A rule unlike the old one, so that a test passes only if the server's
-- values are used.
local rule = { quiet_ms = 300, cap_ms = 1200 }

return function(H)
  H.test("settle: the rule is the server's params.settle; the old values for a server without it", function()
    H.eq({ quiet_ms = 300, cap_ms = 1200 }, request.rule({ uri = 'file:///a', settle = { quietMs = 300, capMs = 1200 } }), 'from the server')
    H.eq({ quiet_ms = 750, cap_ms = 2000 }, request.rule({ uri = 'file:///a' }), 'an older server sends no settle')
    for _, bad in ipairs({ { quietMs = 0, capMs = 1 }, { quietMs = '750', capMs = 2000 }, { quietMs = 5 }, vim.NIL, 7 }) do
      H.eq({ quiet_ms = 750, cap_ms = 2000 }, request.rule({ settle = bad }), 'malformed: ' .. vim.inspect(bad))
    end
    H.eq({ quiet_ms = 750, cap_ms = 2000 }, request.rule(nil), 'no params')
  end)

  H.test('settle: diagnostics that change after the edit end the wait at once', function()
    local changed, diag = 1000, 900
    local planned
    local c = fake(1000, function(ms, c)
      planned = planned or ms
      c.t = c.t + 30
      diag = c.t -- the language server published
    end)
    local waited = request.settle(1000, function()
      return changed, diag
    end, rule, c)
    H.eq(rule.quiet_ms, planned, 'the first sleep would end with the quiet period')
    H.eq(30, waited, 'answered when the diagnostics changed')
    H.eq(1, c.sleeps, 'sleeps')
  end)

  H.test('settle: without a diagnostics change the quiet period ends the wait', function()
    local c = fake(1000, function(ms, c)
      c.t = c.t + ms
    end)
    local waited = request.settle(1000, function()
      return 1000, nil
    end, rule, c)
    H.eq(rule.quiet_ms, waited, 'waited')
  end)

  H.test('settle: a document changed long ago is answered at once', function()
    local c = fake(5000, function()
      error('slept')
    end)
    H.eq(0, request.settle(5000, function()
      return 1000, nil
    end, rule, c), 'waited')
  end)

  H.test('settle: never later than the cap while the document keeps changing', function()
    local changed = 1000
    local c = fake(1000, function(ms, c)
      c.t = c.t + ms
      changed = c.t - 1 -- typing goes on: never quiet
    end)
    local waited = request.settle(1000, function()
      return changed, nil
    end, rule, c)
    H.eq(rule.cap_ms, waited, 'waited')
    H.truthy(c.sleeps > 1, 'the cap, not one quiet period, ended it')
  end)
end
