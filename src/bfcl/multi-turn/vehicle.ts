/** BFCL's VehicleControlAPI (vehicle_control.py). */
import { PyFloat, type PyDict, type PyKey } from '../../python/operations.js'
import { SimulatedApi, get, m, opt, type ApiMethod } from './api.js'
import { PyExc, PyRandom, add, cmp, contains, dict, eq, fl, getKey, mul, num, str, sub, toFloat, truediv, truthy, typeName, type Val } from '../../python/runtime.js'

const f = (x: number) => new PyFloat(x)

/** Zip-code pairs with a known distance (either order). */
const DISTANCES: [string, string, number][] = [
  ['83214', '74532', 750],
  ['56108', '62947', 320],
  ['71354', '83462', 450],
  ['47329', '52013', 290],
  ['69238', '51479', 630],
  ['94016', '83214', 980],
  ['94016', '94704', 600],
  ['94704', '08540', 2550],
  ['94016', '08540', 1950],
  ['62947', '47329', 1053],
  ['94016', '62947', 780],
  ['74532', '94016', 880],
]

const ZIPCODES: Record<string, string> = {
  Rivermist: '83214',
  Stonebrook: '74532',
  Maplecrest: '56108',
  Silverpine: '62947',
  Shadowridge: '71354',
  'Sunset Valley': '83462',
  Oakendale: '47329',
  Willowbend: '52013',
  'Crescent Hollow': '69238',
  Autumnville: '51479',
  'San Francisco': '94016',
}

function inRange(lo: number, v: Val, hi: number): boolean {
  return cmp(lo, v, '<=') && cmp(v, hi, '<=')
}

export class VehicleControlApi extends SimulatedApi {
  readonly className = 'VehicleControlAPI'
  private random = new PyRandom(141053)
  fuelLevel: Val = f(0)
  batteryVoltage: Val = 12.6
  engineState: Val = 'stopped'
  remainingUnlockedDoors: Val = 4
  doorStatus: PyDict = new Map()
  acTemperature: Val = f(25)
  fanSpeed: Val = 50
  acMode: Val = 'auto'
  humidityLevel: Val = f(50)
  headLightStatus: Val = 'off'
  parkingBrakeStatus: Val = 'released'
  private parkingBrakeForce: Val = f(0)
  private slopeAngle: Val = f(0)
  brakePedalStatus: Val = 'released'
  private brakePedalForce: Val = f(0)
  distanceToNextVehicle: Val = f(50)
  cruiseStatus: Val = 'inactive'
  destination: Val = 'None'
  frontLeftTirePressure: Val = f(32)
  frontRightTirePressure: Val = f(32)
  rearLeftTirePressure: Val = f(30)
  rearRightTirePressure: Val = f(30)
  longContext = false

  loadScenario(c: PyDict, longContext: boolean): void {
    this.random = new PyRandom(Number(get(c, 'random_seed', 141053)))
    this.fuelLevel = get(c, 'fuelLevel', f(0))
    this.batteryVoltage = get(c, 'batteryVoltage', 12.6)
    this.engineState = get(c, 'engineState', 'stopped')
    this.doorStatus = get(c, 'doorStatus', dict([['driver', 'unlocked'], ['passenger', 'unlocked'], ['rear_left', 'unlocked'], ['rear_right', 'unlocked']])) as PyDict
    this.remainingUnlockedDoors = 4 - [...this.doorStatus.values()].filter((s) => s === 'locked').length
    this.acTemperature = get(c, 'acTemperature', f(25))
    this.fanSpeed = get(c, 'fanSpeed', 50)
    this.acMode = get(c, 'acMode', 'auto')
    this.humidityLevel = get(c, 'humidityLevel', f(50))
    this.headLightStatus = get(c, 'headLightStatus', 'off')
    this.parkingBrakeStatus = get(c, 'parkingBrakeStatus', 'released')
    this.parkingBrakeForce = get(c, 'parkingBrakeForce', f(0))
    this.slopeAngle = get(c, 'slopeAngle', f(0))
    this.brakePedalStatus = get(c, 'brakePedalStatus', 'released')
    this.brakePedalForce = get(c, 'brakePedalForce', f(0))
    this.distanceToNextVehicle = get(c, 'distanceToNextVehicle', f(50))
    this.cruiseStatus = get(c, 'cruiseStatus', 'inactive')
    this.destination = get(c, 'destination', 'None')
    this.frontLeftTirePressure = get(c, 'frontLeftTirePressure', f(32))
    this.frontRightTirePressure = get(c, 'frontRightTirePressure', f(32))
    this.rearLeftTirePressure = get(c, 'rearLeftTirePressure', f(30))
    this.rearRightTirePressure = get(c, 'rearRightTirePressure', f(30))
    this.longContext = longContext
  }

  state(): [string, Val][] {
    return [
      ['fuelLevel', this.fuelLevel],
      ['batteryVoltage', this.batteryVoltage],
      ['engine_state', this.engineState],
      ['remainingUnlockedDoors', this.remainingUnlockedDoors],
      ['doorStatus', this.doorStatus],
      ['acTemperature', this.acTemperature],
      ['fanSpeed', this.fanSpeed],
      ['acMode', this.acMode],
      ['humidityLevel', this.humidityLevel],
      ['headLightStatus', this.headLightStatus],
      ['parkingBrakeStatus', this.parkingBrakeStatus],
      ['brakePedalStatus', this.brakePedalStatus],
      ['distanceToNextVehicle', this.distanceToNextVehicle],
      ['cruiseStatus', this.cruiseStatus],
      ['destination', this.destination],
      ['frontLeftTirePressure', this.frontLeftTirePressure],
      ['frontRightTirePressure', this.frontRightTirePressure],
      ['rearLeftTirePressure', this.rearLeftTirePressure],
      ['rearRightTirePressure', this.rearRightTirePressure],
      ['long_context', this.longContext],
    ]
  }

  private setDoors(unlock: boolean, doors: Val): void {
    const list = Array.isArray(doors) ? doors : typeof doors === 'string' ? Array.from(doors) : undefined
    if (list === undefined) throw new PyExc(`'${typeName(doors)}' object is not iterable`)
    for (const d of list) {
      const current = getKey(this.doorStatus, d)
      if (current === undefined) throw new PyExc(str([d]).slice(1, -1))
      if (current === (unlock ? 'unlocked' : 'locked')) continue
      this.doorStatus.set(d as PyKey, unlock ? 'unlocked' : 'locked')
      this.remainingUnlockedDoors = add(this.remainingUnlockedDoors, unlock ? 1 : -1)
    }
  }

  methods(): Record<string, ApiMethod> {
    return {
      activateParkingBrake: m(['mode'], ([mode]) => {
        if (!['engage', 'release'].some((x) => eq(x, mode))) return dict([['error', 'Invalid mode']])
        const engage = mode === 'engage'
        this.parkingBrakeStatus = engage ? 'engaged' : 'released'
        this.parkingBrakeForce = f(engage ? 500 : 0)
        this.slopeAngle = f(10)
        const out = dict([['parkingBrakeStatus', this.parkingBrakeStatus], ['_parkingBrakeForce', this.parkingBrakeForce], ['_slopeAngle', f(10)]])
        return this.longContext ? new Map([['parkingBrakeInstruction', this.session.longContext().parkingBrakeInstruction], ...out]) : out
      }),
      adjustClimateControl: m(['temperature', opt('unit', 'celsius'), opt('fanSpeed', 50), opt('mode', 'auto')], ([temp, unit, fan, mode]) => {
        if (!inRange(0, fan!, 100)) return dict([['error', 'Fan speed must be between 0 and 100.']])
        this.acTemperature = temp!
        if (unit === 'fahrenheit') this.acTemperature = truediv(mul(sub(temp, 32), 5), 9)
        this.fanSpeed = fan!
        this.acMode = mode!
        return dict([['currentACTemperature', temp!], ['climateMode', mode!], ['humidityLevel', this.humidityLevel]])
      }),
      check_tire_pressure: m([], () => {
        const avg = truediv(add(add(add(this.frontLeftTirePressure, this.frontRightTirePressure), this.rearLeftTirePressure), this.rearRightTirePressure), 4)
        return dict([
          ['frontLeftTirePressure', this.frontLeftTirePressure],
          ['frontRightTirePressure', this.frontRightTirePressure],
          ['rearLeftTirePressure', this.rearLeftTirePressure],
          ['rearRightTirePressure', this.rearRightTirePressure],
          ['healthy_tire_pressure', inRange(30, avg, 35)],
          ['car_info', this.longContext ? this.session.longContext().carStatusMetadataExtension : new Map()],
        ])
      }),
      displayCarStatus: m(['option'], ([option]) => {
        const s: PyDict = new Map()
        if (this.longContext) s.set('metadata', this.session.longContext().carStatusMetadataExtension)
        switch (option) {
          case 'fuel':
            s.set('fuelLevel', this.fuelLevel)
            break
          case 'battery':
            s.set('batteryVoltage', this.batteryVoltage)
            break
          case 'doors':
            s.set('doorStatus', this.doorStatus)
            break
          case 'climate':
            s.set('currentACTemperature', this.acTemperature).set('fanSpeed', this.fanSpeed).set('climateMode', this.acMode).set('humidityLevel', this.humidityLevel)
            break
          case 'headlights':
            s.set('headlightStatus', this.headLightStatus)
            break
          case 'parkingBrake':
            s.set('parkingBrakeStatus', this.parkingBrakeStatus).set('parkingBrakeForce', this.parkingBrakeForce).set('slopeAngle', this.slopeAngle)
            break
          case 'brakePedal':
            s.set('brakePedalStatus', this.brakePedalStatus).set('brakePedalForce', this.brakePedalForce)
            break
          case 'engine':
            s.set('engineState', this.engineState)
            break
          default:
            s.set('error', 'Invalid option')
        }
        return s
      }),
      display_log: m(['messages'], ([msgs]) => dict([['log', msgs!]])),
      estimate_distance: m(['cityA', 'cityB'], ([a, b]) => {
        let distance = dict([['error', 'distance not found in database.']])
        for (const [x, y, d] of DISTANCES) {
          if ((a === x && b === y) || (a === y && b === x)) {
            distance = dict([['distance', f(d)]])
            break
          }
        }
        if (this.longContext) distance.set('intermediaryCities', this.session.longContext().intermediaryCities)
        return distance
      }),
      estimate_drive_feasibility_by_mileage: m(['distance'], ([d]) => dict([['canDrive', !cmp(mul(this.fuelLevel, f(20)), d, '<')]])),
      fillFuelTank: m(['fuelAmount'], ([amount]) => {
        if (cmp(amount, 0, '<')) return dict([['error', 'Fuel amount cannot be negative.']])
        if (cmp(add(this.fuelLevel, amount), 50, '>')) return dict([['error', 'Cannot fill gas above the tank capacity.']])
        if (cmp(add(this.fuelLevel, amount), 0, '<')) return dict([['error', 'Fuel tank is empty. Min fuel level is 0 gallons.']])
        this.fuelLevel = add(this.fuelLevel, amount)
        return dict([['fuelLevel', this.fuelLevel]])
      }),
      find_nearest_tire_shop: m([], () => dict([['shopLocation', '456 Oakwood Avenue, Rivermist, 83214']])),
      gallon_to_liter: m(['gallon'], ([g]) => dict([['liter', mul(g, fl(3.78541))]])),
      get_current_speed: m([], () => dict([['currentSpeed', fl(this.random.uniform(0, 120))]])),
      get_outside_temperature_from_google: m([], () => {
        if (!this.longContext) return dict([['outsideTemperature', fl(this.random.uniform(-10, 40))]])
        // The reference writes into its module-level dict and returns it: the key stays for the whole run.
        const weather = this.session.longContext().longWeatherExtension
        weather.set('outsideTemperature', fl(this.random.uniform(-10, 40)))
        return weather
      }),
      get_outside_temperature_from_weather_com: m([], () => dict([['error', 404]])),
      get_zipcode_based_on_city: m(['city'], ([city]) => dict([['zipcode', typeof city === 'string' && Object.hasOwn(ZIPCODES, city) ? ZIPCODES[city]! : '00000']])),
      liter_to_gallon: m(['liter'], ([l]) => dict([['gallon', mul(l, fl(0.264172))]])),
      lockDoors: m(['unlock', 'door'], ([unlock, door]) => {
        const u = truthy(unlock)
        this.setDoors(u, door!)
        return dict([['lockStatus', u ? 'unlocked' : 'locked'], ['remainingUnlockedDoors', this.remainingUnlockedDoors]])
      }),
      pressBrakePedal: m(['pedalPosition'], ([pos]) => {
        if (!inRange(0, pos!, 1)) return dict([['error', 'Pedal position must be between 0 and 1.']])
        if (eq(pos, 0)) {
          this.brakePedalStatus = 'released'
          this.brakePedalForce = f(0)
          return dict([['brakePedalStatus', 'released'], ['brakePedalForce', f(0)]])
        }
        const force = mul(pos, 1000)
        this.brakePedalStatus = 'pressed'
        this.brakePedalForce = force
        return dict([['brakePedalStatus', 'pressed'], ['brakePedalForce', toFloat(force)]])
      }),
      releaseBrakePedal: m([], () => {
        this.brakePedalStatus = 'released'
        this.brakePedalForce = f(0)
        return dict([['brakePedalStatus', 'released'], ['brakePedalForce', f(0)]])
      }),
      setCruiseControl: m(['speed', 'activate', 'distanceToNextVehicle'], ([speed, activate, dist]) => {
        const d = toFloat(dist)
        const s = toFloat(speed)
        if (this.engineState === 'stopped') return dict([['error', 'Start the engine before activating the cruise control.']])
        this.distanceToNextVehicle = d
        if (truthy(activate)) {
          const v = num(s)
          if (v < 0 || v > 120 || ((v % 5) + 5) % 5 !== 0) return dict([['error', 'Invalid speed']])
          this.cruiseStatus = 'active'
        } else this.cruiseStatus = 'inactive'
        return dict([['cruiseStatus', this.cruiseStatus], ['currentSpeed', s], ['distanceToNextVehicle', d]])
      }),
      setHeadlights: m(['mode'], ([mode]) => {
        if (!['on', 'off', 'auto'].some((x) => eq(x, mode))) return dict([['error', 'Invalid headlight mode.']])
        this.headLightStatus = mode === 'on' ? 'on' : 'off'
        return dict([['headlightStatus', this.headLightStatus]])
      }),
      set_navigation: m(['destination'], ([d]) => {
        if (typeof d !== 'string') throw new PyExc(`can only concatenate str (not "${typeName(d)}") to str`)
        this.destination = d
        return dict([['status', 'Navigating to ' + d]])
      }),
      startEngine: m(['ignitionMode'], ([mode]) => {
        if (mode === 'STOP') this.engineState = 'stopped'
        if (cmp(this.remainingUnlockedDoors, 0, '>')) {
          const unlocked = [...this.doorStatus].filter(([, s]) => s === 'unlocked').map(([d]) => str(d))
          return dict([['error', 'All doors must be locked before starting the engine. Here are the unlocked doors: ' + unlocked.join(', ')]])
        }
        if (this.brakePedalStatus !== 'pressed') return dict([['error', 'Brake pedal needs to be pressed when starting the engine.']])
        if (!eq(this.brakePedalForce, 1000)) return dict([['error', 'Must press the brake fully before starting the engine.']])
        if (cmp(this.fuelLevel, 0, '<')) return dict([['error', 'Fuel tank is empty.']])
        if (mode !== 'START') return dict([['error', 'Invalid ignition mode.']])
        this.engineState = 'running'
        return dict([['engineState', this.engineState], ['fuelLevel', this.fuelLevel], ['batteryVoltage', this.batteryVoltage]])
      }),
    }
  }
}

void contains
