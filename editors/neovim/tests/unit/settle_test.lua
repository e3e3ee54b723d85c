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

return function(H)
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
    end, c)
    H.eq(request.quiet_ms, planned, 'the first sleep would end with the quiet period')
    H.eq(30, waited, 'answered when the diagnostics changed')
    H.eq(1, c.sleeps, 'sleeps')
  end)

  H.test('settle: without a diagnostics change the quiet period ends the wait', function()
    local c = fake(1000, function(ms, c)
      c.t = c.t + ms
    end)
    local waited = request.settle(1000, function()
      return 1000, nil
    end, c)
    H.eq(request.quiet_ms, waited, 'waited')
  end)

  H.test('settle: a document changed long ago is answered at once', function()
    local c = fake(5000, function()
      error('slept')
    end)
    H.eq(0, request.settle(5000, function()
      return 1000, nil
    end, c), 'waited')
  end)

  H.test('settle: never later than the cap while the document keeps changing', function()
    local changed = 1000
    local c = fake(1000, function(ms, c)
      c.t = c.t + ms
      changed = c.t - 1 -- typing goes on: never quiet
    end)
    local waited = request.settle(1000, function()
      return changed, nil
    end, c)
    H.eq(request.cap_ms, waited, 'waited')
    H.eq(2000, request.cap_ms, 'the cap')
    H.truthy(c.sleeps > 1, 'the cap, not one quiet period, ended it')
  end)
end
