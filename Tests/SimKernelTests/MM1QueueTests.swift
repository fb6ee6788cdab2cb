import Testing
import SimKernel

/// An M/M/1 queue written on the engine, as a model with known theory: the mean time
/// in system is 1 / (mu − lambda).
struct MM1: EventHandler {
    enum Event { case arrival, departure }
    let arrivalMean: Double
    let serviceMean: Double
    var rng: Xoshiro256StarStar
    /// Arrival times of customers in the system, oldest first (a ring would do; the
    /// test keeps it simple with a head index).
    var waiting: [SimTime] = []
    var head = 0
    var sojourn = Welford()
    let customers: Int
    var arrived = 0

    mutating func handle(_ event: Event, scheduler: inout Scheduler<Event>) {
        switch event {
        case .arrival:
            arrived += 1
            waiting.append(scheduler.now)
            if waiting.count - head == 1 {
                scheduler.schedule(.departure, after: draw(serviceMean))
            }
            if arrived < customers {
                scheduler.schedule(.arrival, after: draw(arrivalMean))
            }
        case .departure:
            let arrivedAt = waiting[head]
            head += 1
            sojourn.record((scheduler.now - arrivedAt).seconds)
            if waiting.count - head > 0 {
                scheduler.schedule(.departure, after: draw(serviceMean))
            }
        }
    }

    mutating func draw(_ mean: Double) -> SimTime {
        // Time in microseconds; means are in seconds, large enough that rounding is negligible.
        SimTime(seconds: Exponential.sample(mean: mean, &rng))
    }
}

@Suite("An M/M/1 queue on the engine agrees with queueing theory")
struct MM1QueueTests {
    @Test("mean time in system is within 2% of 1/(mu - lambda)", arguments: [0.5, 0.8])
    func meanSojourn(rho: Double) {
        let mu = 1.0  // services per second
        let lambda = rho * mu
        var sim = Simulation(model: MM1(arrivalMean: 1 / lambda, serviceMean: 1 / mu,
                                        rng: Xoshiro256StarStar(seed: 2024, 1), customers: 2_000_000),
                             capacity: 4)
        sim.schedule(.arrival, at: .zero)
        sim.runToCompletion()
        let theory = 1 / (mu - lambda)
        #expect(sim.model.sojourn.count == 2_000_000)
        #expect(abs(sim.model.sojourn.mean - theory) / theory < 0.02,
                "rho \(rho): mean \(sim.model.sojourn.mean) vs theory \(theory)")
    }
}
