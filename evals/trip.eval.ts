// An agent under test: the scripted fixture model (see travel.eval.ts) run through the agent loop. It calls
// find_airport, gets the airport's code back as a tool message, calls book_hotel with that code, and answers; the
// tools below execute the calls. The trajectory (every step's calls and results) is in the report, scored against
// the sample's `expectedTrajectory`, and the run's end state is checked in `assert`.
import { expect } from 'vitest'
import { describeEval, local } from 'vitest-tool-evals'

const bookings: string[] = []

describeEval('trip', {
  data: 'fixtures/trip.jsonl',
  model: local('./fixtures/models/scripted'),
  tools: {
    find_airport: ({ city }) => (city === 'Lisbon' ? { code: 'LIS', name: 'Humberto Delgado' } : { error: `no airport for ${String(city)}` }),
    book_hotel: ({ near }) => {
      bookings.push(String(near))
      return `Hotel Aeroporto near ${String(near)}`
    },
  },
  maxSteps: 4,
  assert(result) {
    expect(result).toHaveCalledToolsInOrder(['find_airport', { name: 'book_hotel', arguments: { near: 'LIS' } }])
    expect(result.trajectory?.answer).toBe('Booked: Hotel Aeroporto near LIS.')
    expect(bookings).toEqual(['LIS'])
  },
  // As in travel.eval.ts: the first step waits for the model to load.
  timeout: 60_000,
})
