/**
 * The classifier's seed corpus, as data (contract §9): rules `{schema globs, verb set, object
 * patterns?, oiCode, safety citations, confidence}` over the eleven corpus areas of 02-physical-api.md,
 * plus a block of safety rules that apply to every schema. Codes are the taxonomy's (04-taxonomy.md);
 * the schema namespaces, verb lists, object patterns, confidences and descriptions are our own.
 *
 * Matching (see classifier.ts): the goal's schema and object are lower-cased and matched against
 * the `*`/`?` globs of policy/glob.ts; the verb is lower-cased and looked up in the verb set. A
 * rule with `objects` matches only a goal whose object matches one of them, and is meant to be
 * more specific (and usually more confident) than the object-less rules of the same verbs.
 *
 * Confidence bands: 0.9 and above for unambiguous verb/object pairs; 0.75–0.89 for a clear verb
 * whose object is open; 0.6–0.74 for verbs with a second plausible reading; below 0.6 for verbs so
 * generic that the default policy escalates them to an operator (`escalate-on-low-confidence`).
 */

export const CORPUS_AREAS = [
  'robot',
  'industrial',
  'aerial',
  'surgical',
  'warehouse',
  'road',
  'energy',
  'mining',
  'construction',
  'marine',
  'agriculture',
] as const;
/** The eleven areas of the document, in its order: robot manipulation and navigation, … agriculture. */
export type CorpusArea = (typeof CORPUS_AREAS)[number];
/** Rules of the `safety` block apply in every area (schema `*`). */
export type RuleArea = CorpusArea | 'safety';

export const CORPUS_AREA_TITLES: Readonly<Record<RuleArea, string>> = {
  robot: 'robot manipulation and navigation',
  industrial: 'industrial automation',
  aerial: 'aerial vehicles',
  surgical: 'surgical',
  warehouse: 'warehouse vehicles',
  road: 'road vehicles',
  energy: 'energy',
  mining: 'mining',
  construction: 'construction',
  marine: 'marine',
  agriculture: 'agriculture',
  safety: 'safety functions (every area)',
};

export interface CorpusRule {
  /** `<area>.<slug>`, unique. */
  readonly id: string;
  readonly area: RuleArea;
  /** Globs over the lower-cased goal schema; any may match. */
  readonly schemas: readonly string[];
  /** Lower-case kebab verbs. */
  readonly verbs: readonly string[];
  /** Globs over the lower-cased goal object; when present the goal must have a matching object. */
  readonly objects?: readonly string[];
  readonly oiCode: string;
  /** Safety categories (`OI-29NN`) the action touches. */
  readonly citations: readonly string[];
  readonly confidence: number;
  readonly description: string;
}

interface Row {
  slug: string;
  verbs: readonly string[];
  objects?: readonly string[];
  oiCode: string;
  cites?: readonly string[];
  confidence: number;
  description: string;
}

function block(area: RuleArea, schemas: readonly string[], rows: readonly Row[]): CorpusRule[] {
  return rows.map((row) => {
    const rule: CorpusRule = {
      id: `${area}.${row.slug}`,
      area,
      schemas,
      verbs: row.verbs,
      oiCode: row.oiCode,
      citations: row.cites ?? [],
      confidence: row.confidence,
      description: row.description,
      ...(row.objects === undefined ? {} : { objects: row.objects }),
    };
    return rule;
  });
}

const ROBOT_ARM = ['robot.manipulation*', 'robot.arm*', 'cobot.*', 'ros2.moveit*'];
const ROBOT_MOBILE = ['robot.navigation*', 'robot.mobile*', 'ros2.nav2*'];
const ROBOT_LEGGED = ['robot.legged*', 'robot.quadruped*', 'robot.humanoid*'];
const ROBOT_ANY = ['robot.*', 'cobot.*', 'ros2.*'];
const ROBOT_HAZARD = ['robot.hazmat*', 'robot.eod*', 'robot.nuclear*'];
const INDUSTRIAL = ['industrial.*', 'plc.*', 'opcua.*', 'cnc.*', 'factory.*'];
const AERIAL = ['aerial.*', 'uas.*', 'drone.*', 'mavlink.*'];
const SPACE = ['space.*', 'aerial.space*'];
const SURGICAL = ['surgical.*', 'medical.*', 'hospital.*'];
const WAREHOUSE = ['warehouse.*', 'vda5050*', 'agv.*', 'amr.*', 'forklift.*', 'intralogistics.*'];
const ROAD = ['vehicle.*', 'road.*', 'av.*', 'fleet.*'];
const ENERGY = ['energy.*', 'grid.*', 'utility.*', 'power.*', 'iec61850*'];
const NUCLEAR = ['energy.nuclear*', 'nuclear.*'];
const MINING = ['mining.*', 'mine.*'];
const CONSTRUCTION = ['construction.*', 'site.*', 'crane.*', 'earthmoving.*'];
const MARINE = ['marine.*', 'vessel.*', 'rov.*', 'subsea.*'];
const PORT = ['port.*', 'marine.cargo*', 'terminal.*'];
const AGRICULTURE = ['agriculture.*', 'agri.*', 'farm.*', 'isobus*', 'greenhouse.*', 'livestock.*'];

const ROBOT_RULES: CorpusRule[] = [
  ...block('robot', ROBOT_ARM, [
    {
      slug: 'plan-grasp',
      verbs: ['plan-grasp', 'compute-grasp', 'evaluate-grasp'],
      oiCode: 'OI-1501',
      confidence: 0.93,
      description: 'Computes or scores a grasp before any contact is made.',
    },
    {
      slug: 'grasp',
      verbs: ['grasp', 'grip'],
      oiCode: 'OI-1502',
      confidence: 0.72,
      description: 'Closes the gripper on an object, usually as the first half of a pick.',
    },
    {
      slug: 'grasp-planning-reading',
      verbs: ['grasp', 'grip'],
      oiCode: 'OI-1501',
      confidence: 0.55,
      description: 'A grasp request can also be read as asking for grasp planning only.',
    },
    {
      slug: 'pick-and-place',
      verbs: ['pick', 'place', 'pick-and-place', 'transfer', 'release'],
      oiCode: 'OI-1502',
      confidence: 0.9,
      description: 'Moves an object from one pose to another with the end effector.',
    },
    {
      slug: 'handover-to-human',
      verbs: ['hand-over', 'handover', 'give'],
      objects: ['*human*', '*operator*', '*person*', '*worker*'],
      oiCode: 'OI-1502',
      cites: ['OI-2903', 'OI-2904'],
      confidence: 0.94,
      description: 'Passes an object directly into a person’s hand, inside the shared workspace.',
    },
    {
      slug: 'assemble',
      verbs: ['assemble', 'insert', 'mate', 'fasten', 'screw'],
      oiCode: 'OI-1503',
      confidence: 0.88,
      description: 'Joins parts: insertion, screwing, snap fits.',
    },
    {
      slug: 'tool-change',
      verbs: ['change-tool', 'swap-end-effector', 'mount-tool', 'unmount-tool'],
      oiCode: 'OI-1504',
      confidence: 0.92,
      description: 'Exchanges the tool or end effector on the flange.',
    },
    {
      slug: 'use-tool',
      verbs: ['use-tool', 'drill', 'cut', 'saw', 'weld', 'glue', 'dispense'],
      oiCode: 'OI-1504',
      confidence: 0.8,
      description: 'Works a part with a powered or passive tool held by the arm.',
    },
    {
      slug: 'dexterous',
      verbs: ['regrasp', 'reorient', 'manipulate-in-hand', 'fold', 'unscrew-cap', 'open-drawer'],
      oiCode: 'OI-1505',
      confidence: 0.86,
      description: 'Multi-finger or in-hand manipulation that changes the grasp during the motion.',
    },
    {
      slug: 'force-controlled',
      verbs: ['polish', 'sand', 'deburr', 'press-fit', 'apply-force', 'wipe'],
      oiCode: 'OI-1506',
      cites: ['OI-2904'],
      confidence: 0.88,
      description: 'Contact work under force control, where the arm pushes on the environment.',
    },
    {
      slug: 'arm-motion',
      verbs: ['move-arm', 'move-to-pose', 'move-joints', 'jog', 'home'],
      oiCode: 'OI-1801',
      cites: ['OI-2904'],
      confidence: 0.78,
      description: 'Free-space motion of the arm to a pose or joint configuration.',
    },
    {
      slug: 'arm-motion-collision',
      verbs: ['move-arm', 'move-to-pose', 'jog'],
      oiCode: 'OI-2906',
      confidence: 0.5,
      description: 'An arm motion also engages collision checking against the cell model.',
    },
    {
      slug: 'move-generic',
      verbs: ['move', 'go', 'execute'],
      oiCode: 'OI-1801',
      cites: ['OI-2904'],
      confidence: 0.55,
      description: 'An unspecific motion command for a manipulator.',
    },
  ]),
  ...block('robot', ROBOT_MOBILE, [
    {
      slug: 'plan-path',
      verbs: ['plan-path', 'compute-path', 'replan', 'plan-route'],
      oiCode: 'OI-1601',
      confidence: 0.92,
      description: 'Computes a route through the map without moving.',
    },
    {
      slug: 'navigate',
      verbs: ['navigate-to', 'go-to', 'drive-to', 'follow-path', 'patrol'],
      oiCode: 'OI-1603',
      cites: ['OI-2906'],
      confidence: 0.9,
      description: 'Drives the wheeled base to a goal along a planned path.',
    },
    {
      slug: 'dock',
      verbs: ['dock', 'undock', 'dock-for-charging'],
      oiCode: 'OI-1603',
      confidence: 0.85,
      description: 'Approaches or leaves a docking or charging station.',
    },
    {
      slug: 'avoid-obstacle',
      verbs: ['avoid-obstacle', 'detour', 'clear-costmap'],
      oiCode: 'OI-1602',
      cites: ['OI-2906'],
      confidence: 0.88,
      description: 'Changes the local plan around an obstacle or resets the obstacle layer.',
    },
    {
      slug: 'follow-person',
      verbs: ['follow', 'escort'],
      objects: ['*person*', '*human*', '*operator*', '*visitor*'],
      oiCode: 'OI-1603',
      cites: ['OI-2903', 'OI-2906'],
      confidence: 0.9,
      description: 'Drives in close company of a person.',
    },
    {
      slug: 'move-base',
      verbs: ['move', 'drive', 'rotate-in-place'],
      oiCode: 'OI-1603',
      cites: ['OI-2906'],
      confidence: 0.6,
      description: 'A bare velocity or relative motion command for the mobile base.',
    },
  ]),
  ...block('robot', ROBOT_LEGGED, [
    {
      slug: 'walk',
      verbs: ['walk', 'trot', 'walk-to', 'climb-stairs', 'step-over'],
      oiCode: 'OI-1604',
      cites: ['OI-2906'],
      confidence: 0.92,
      description: 'Legged gait toward a goal, including stairs and obstacles.',
    },
    {
      slug: 'posture',
      verbs: ['stand-up', 'sit-down', 'lie-down', 'recover-from-fall', 'jump'],
      oiCode: 'OI-1604',
      cites: ['OI-2904'],
      confidence: 0.86,
      description: 'Whole-body posture changes of a legged platform.',
    },
  ]),
  ...block('robot', ROBOT_ANY, [
    {
      slug: 'capture-image',
      verbs: ['capture-image', 'take-photo', 'record-video', 'detect-objects', 'segment-scene'],
      oiCode: 'OI-1701',
      confidence: 0.9,
      description: 'Camera capture and image-based detection.',
    },
    {
      slug: 'scan-depth',
      verbs: ['scan', 'build-map', 'map-area', 'depth-scan', 'scan-lidar'],
      oiCode: 'OI-1702',
      confidence: 0.84,
      description: 'LiDAR or depth sensing, including building a map.',
    },
    {
      slug: 'listen',
      verbs: ['listen', 'record-audio', 'detect-sound', 'localize-sound'],
      oiCode: 'OI-1703',
      confidence: 0.9,
      description: 'Microphone capture and sound event detection.',
    },
    {
      slug: 'force-torque',
      verbs: ['tare-force-sensor', 'read-force-torque', 'probe-contact', 'read-tactile'],
      oiCode: 'OI-1704',
      confidence: 0.9,
      description: 'Reads or zeroes the force-torque or tactile sensors.',
    },
    {
      slug: 'localize',
      verbs: ['localize', 'relocalize', 'set-initial-pose', 'read-imu'],
      oiCode: 'OI-1706',
      confidence: 0.9,
      description: 'Estimates or resets the robot pose from inertial and map data.',
    },
    {
      slug: 'calibrate',
      verbs: ['calibrate', 'calibrate-camera', 'hand-eye-calibrate', 'calibrate-lidar', 'calibrate-sensor'],
      oiCode: 'OI-1707',
      confidence: 0.88,
      description: 'Intrinsic or extrinsic calibration of a sensor.',
    },
    {
      slug: 'motors',
      verbs: ['enable-motors', 'disable-motors', 'set-motor-speed', 'brake-release'],
      oiCode: 'OI-1801',
      cites: ['OI-2904'],
      confidence: 0.9,
      description: 'Direct control of drive power and speed of the motors.',
    },
    {
      slug: 'tune',
      verbs: ['tune-pid', 'set-gains', 'autotune', 'set-impedance'],
      oiCode: 'OI-1805',
      cites: ['OI-2904'],
      confidence: 0.9,
      description: 'Changes controller gains, which changes how every later motion behaves.',
    },
  ]),
  ...block('robot', ROBOT_HAZARD, [
    {
      slug: 'eod-disrupt',
      verbs: ['disrupt', 'render-safe', 'disarm-device', 'place-charge'],
      oiCode: 'OI-2505',
      cites: ['OI-2903'],
      confidence: 0.94,
      description: 'Render-safe work on an explosive device.',
    },
    {
      slug: 'eod-inspect',
      verbs: ['inspect', 'x-ray', 'approach'],
      objects: ['*device*', '*package*', '*ied*', '*suspicious*'],
      oiCode: 'OI-2505',
      confidence: 0.88,
      description: 'Remote inspection of a suspect object before any intervention.',
    },
    {
      slug: 'radioactive-handling',
      verbs: ['handle-source', 'transfer-source', 'load-cask', 'sort-waste'],
      oiCode: 'OI-2501',
      cites: ['OI-2903'],
      confidence: 0.9,
      description: 'Manipulates radioactive material in a hot cell or at a site.',
    },
    {
      slug: 'decontaminate',
      verbs: ['decontaminate', 'remediate', 'swab', 'scabble'],
      oiCode: 'OI-2504',
      confidence: 0.88,
      description: 'Cleans or samples contaminated surfaces and soil.',
    },
  ]),
];

const INDUSTRIAL_RULES: CorpusRule[] = block('industrial', INDUSTRIAL, [
  {
    slug: 'line-control',
    verbs: ['start-line', 'stop-line', 'set-line-speed', 'index-conveyor', 'pause-line'],
    oiCode: 'OI-1901',
    cites: ['OI-2904'],
    confidence: 0.92,
    description: 'Starts, stops or paces an assembly line.',
  },
  {
    slug: 'cnc-program',
    verbs: ['run-program', 'load-program', 'start-cycle', 'cycle-start'],
    oiCode: 'OI-1902',
    cites: ['OI-2905'],
    confidence: 0.86,
    description: 'Loads or runs a part program on a machine tool.',
  },
  {
    slug: 'machining',
    verbs: ['mill', 'turn', 'machine-part', 'start-spindle', 'grind-part'],
    oiCode: 'OI-1902',
    cites: ['OI-2904'],
    confidence: 0.9,
    description: 'Removes material with a spindle or cutter.',
  },
  {
    slug: 'additive',
    verbs: ['start-print', 'print-part', 'pause-print', 'resume-print', 'sinter'],
    oiCode: 'OI-1903',
    confidence: 0.92,
    description: 'Runs an additive manufacturing job.',
  },
  {
    slug: 'batch',
    verbs: ['start-batch', 'dose', 'mix', 'charge-reactor', 'discharge-reactor'],
    oiCode: 'OI-1904',
    confidence: 0.88,
    description: 'Runs or doses a recipe-driven batch process.',
  },
  {
    slug: 'inspect-part',
    verbs: ['inspect-part', 'measure-part', 'gauge', 'reject-part'],
    oiCode: 'OI-1905',
    confidence: 0.9,
    description: 'In-line or end-of-line quality inspection.',
  },
  {
    slug: 'inspect',
    verbs: ['inspect'],
    oiCode: 'OI-1905',
    confidence: 0.7,
    description: 'A bare inspection request in a plant is most often a quality check.',
  },
  {
    slug: 'inspect-vision',
    verbs: ['inspect'],
    oiCode: 'OI-1701',
    confidence: 0.55,
    description: 'An inspection may also be a plain camera capture.',
  },
  {
    slug: 'material-handling',
    verbs: ['convey', 'palletize', 'depalletize', 'feed-material', 'transfer-tote'],
    oiCode: 'OI-1906',
    confidence: 0.88,
    description: 'Moves material between stations inside the plant.',
  },
  {
    slug: 'scheduling',
    verbs: ['schedule-job', 'dispatch-order', 'change-over', 'release-order'],
    oiCode: 'OI-1907',
    confidence: 0.9,
    description: 'Changes what the line produces next.',
  },
  {
    slug: 'valves',
    verbs: ['open', 'close', 'actuate', 'toggle'],
    objects: ['*valve*', '*cylinder*', '*clamp*', '*damper*'],
    oiCode: 'OI-1802',
    cites: ['OI-2904'],
    confidence: 0.9,
    description: 'Drives a pneumatic or hydraulic actuator.',
  },
  {
    slug: 'pressure',
    verbs: ['pressurize', 'depressurize', 'vent', 'bleed'],
    oiCode: 'OI-1802',
    cites: ['OI-2905'],
    confidence: 0.88,
    description: 'Changes line pressure in a fluid power system.',
  },
  {
    slug: 'thermal',
    verbs: ['set-temperature', 'heat', 'cool', 'set-hvac-mode', 'preheat'],
    oiCode: 'OI-1803',
    confidence: 0.86,
    description: 'Changes a heating, cooling or ventilation setpoint.',
  },
  {
    slug: 'power',
    verbs: ['power-on', 'power-off', 'energize', 'de-energize', 'switch-power'],
    oiCode: 'OI-1804',
    cites: ['OI-2905'],
    confidence: 0.88,
    description: 'Switches electrical supply to equipment.',
  },
  {
    slug: 'tuning',
    verbs: ['tune-pid', 'set-gains', 'autotune', 'tune-loop'],
    oiCode: 'OI-1805',
    confidence: 0.9,
    description: 'Retunes a process control loop.',
  },
  {
    slug: 'setpoint',
    verbs: ['set-setpoint', 'write-tag', 'force-output'],
    oiCode: 'OI-1800',
    cites: ['OI-2904'],
    confidence: 0.6,
    description: 'A raw write to a controller tag; the effect depends on what the tag drives.',
  },
  {
    slug: 'environment',
    verbs: ['measure-gas', 'sample-air', 'measure-humidity', 'read-temperature'],
    oiCode: 'OI-1705',
    confidence: 0.9,
    description: 'Reads environmental sensors in the plant.',
  },
  {
    slug: 'confined-space',
    verbs: ['enter-confined-space', 'inspect-tank', 'inspect-vessel-interior'],
    oiCode: 'OI-2506',
    cites: ['OI-2905', 'OI-2903'],
    confidence: 0.92,
    description: 'Sends a machine into a tank, silo or vessel interior.',
  },
  {
    slug: 'motor-drive',
    verbs: ['set-motor-speed', 'start-motor', 'stop-motor', 'reverse-motor'],
    oiCode: 'OI-1801',
    cites: ['OI-2904'],
    confidence: 0.9,
    description: 'Commands a drive or motor starter.',
  },
]);

const AERIAL_RULES: CorpusRule[] = [
  ...block('aerial', AERIAL, [
    {
      slug: 'takeoff-land',
      verbs: ['takeoff', 'take-off', 'land', 'hover', 'return-to-home', 'return-to-launch'],
      oiCode: 'OI-2101',
      cites: ['OI-2902'],
      confidence: 0.93,
      description: 'Core flight phases of a multicopter or fixed-wing aircraft.',
    },
    {
      slug: 'arming',
      verbs: ['arm', 'disarm', 'arm-motors'],
      oiCode: 'OI-2101',
      cites: ['OI-2904'],
      confidence: 0.86,
      description: 'Arms or disarms the propulsion system.',
    },
    {
      slug: 'flight-path',
      verbs: ['set-flight-path', 'upload-mission', 'follow-waypoints', 'goto-waypoint', 'orbit'],
      oiCode: 'OI-1605',
      cites: ['OI-2902'],
      confidence: 0.9,
      description: 'Defines or flies a route through the air.',
    },
    {
      slug: 'airspace',
      verbs: ['request-airspace-authorization', 'request-laanc', 'file-flight-plan', 'check-notams'],
      oiCode: 'OI-2102',
      cites: ['OI-2907'],
      confidence: 0.94,
      description: 'Obtains or checks the right to use a piece of airspace.',
    },
    {
      slug: 'payload-drop',
      verbs: ['drop-payload', 'release-payload', 'winch-down', 'deliver-package'],
      oiCode: 'OI-2103',
      cites: ['OI-2903'],
      confidence: 0.92,
      description: 'Lowers or releases a payload below the aircraft.',
    },
    {
      slug: 'payload-spray',
      verbs: ['spray', 'dispense'],
      oiCode: 'OI-2103',
      confidence: 0.8,
      description: 'Distributes a liquid or granular payload from the air.',
    },
    {
      slug: 'payload-camera',
      verbs: ['capture-image', 'survey', 'inspect', 'record-video'],
      oiCode: 'OI-1701',
      confidence: 0.75,
      description: 'Aerial imaging for survey or inspection.',
    },
    {
      slug: 'payload-camera-ops',
      verbs: ['survey', 'inspect'],
      oiCode: 'OI-2103',
      confidence: 0.6,
      description: 'Survey flights are also payload operations of the gimbal.',
    },
    {
      slug: 'tether-power',
      verbs: ['swap-battery', 'tether-ascend', 'reel-in-tether', 'charge'],
      oiCode: 'OI-2104',
      confidence: 0.88,
      description: 'Battery exchange and tethered power operations.',
    },
    {
      slug: 'bvlos',
      verbs: ['fly-bvlos', 'start-bvlos-mission', 'extend-range'],
      oiCode: 'OI-2105',
      cites: ['OI-2902', 'OI-2907'],
      confidence: 0.93,
      description: 'Flight beyond the pilot’s visual line of sight.',
    },
    {
      slug: 'swarm',
      verbs: ['start-swarm', 'form-formation', 'coordinate-fleet', 'hand-off-airspace'],
      oiCode: 'OI-2106',
      cites: ['OI-2906'],
      confidence: 0.9,
      description: 'Coordinates several aircraft as one mission.',
    },
    {
      slug: 'fly-generic',
      verbs: ['fly', 'fly-to', 'move'],
      oiCode: 'OI-2101',
      cites: ['OI-2902'],
      confidence: 0.62,
      description: 'A generic flight command without a mission context.',
    },
  ]),
  ...block('aerial', SPACE, [
    {
      slug: 'space-capture',
      verbs: ['capture-satellite', 'berth', 'dock-module', 'grapple'],
      oiCode: 'OI-2503',
      cites: ['OI-2906'],
      confidence: 0.9,
      description: 'Orbital capture, berthing and docking operations.',
    },
    {
      slug: 'space-maneuver',
      verbs: ['fire-thruster', 'station-keep', 'deorbit'],
      oiCode: 'OI-2503',
      confidence: 0.88,
      description: 'Orbital manoeuvres of a spacecraft or free flyer.',
    },
  ]),
];

const SURGICAL_RULES: CorpusRule[] = block('surgical', SURGICAL, [
  {
    slug: 'incise',
    verbs: ['incise', 'cut', 'dissect', 'resect', 'ablate'],
    oiCode: 'OI-2201',
    cites: ['OI-2904', 'OI-2903'],
    confidence: 0.94,
    description: 'Tissue-cutting steps of a procedure.',
  },
  {
    slug: 'suture',
    verbs: ['suture', 'staple', 'clip', 'ligate', 'cauterize'],
    oiCode: 'OI-2201',
    cites: ['OI-2904', 'OI-2903'],
    confidence: 0.93,
    description: 'Closing and haemostasis steps of a procedure.',
  },
  {
    slug: 'instrument-motion',
    verbs: ['move-instrument', 'insert-instrument', 'retract-instrument', 'retract-tissue'],
    oiCode: 'OI-2201',
    cites: ['OI-2904'],
    confidence: 0.88,
    description: 'Moves an instrument inside or near the patient.',
  },
  {
    slug: 'position-patient',
    verbs: ['position-patient', 'move-table', 'tilt-table', 'raise-table'],
    oiCode: 'OI-2202',
    cites: ['OI-2903'],
    confidence: 0.92,
    description: 'Moves the patient support.',
  },
  {
    slug: 'dispense-medication',
    verbs: ['dispense-medication', 'set-infusion-rate', 'infuse', 'prepare-dose'],
    oiCode: 'OI-2203',
    confidence: 0.93,
    description: 'Prepares or delivers a drug dose.',
  },
  {
    slug: 'imaging',
    verbs: ['acquire-scan', 'start-imaging', 'capture-xray', 'start-ultrasound', 'acquire-fluoroscopy'],
    oiCode: 'OI-2204',
    cites: ['OI-2903'],
    confidence: 0.92,
    description: 'Acquires diagnostic images, some with ionizing radiation.',
  },
  {
    slug: 'samples',
    verbs: ['collect-sample', 'aliquot', 'centrifuge', 'transport-sample', 'pipette'],
    oiCode: 'OI-2205',
    confidence: 0.9,
    description: 'Handles specimens in the lab or at the bedside.',
  },
  {
    slug: 'sterilize',
    verbs: ['sterilize', 'disinfect', 'uv-clean', 'autoclave'],
    oiCode: 'OI-2206',
    cites: ['OI-2903'],
    confidence: 0.92,
    description: 'Cleans instruments or rooms, including UV exposure.',
  },
  {
    slug: 'telemetry',
    verbs: ['read-vitals', 'monitor-patient', 'stream-telemetry', 'set-alarm-limits'],
    oiCode: 'OI-2207',
    confidence: 0.9,
    description: 'Reads or configures patient monitoring.',
  },
  {
    slug: 'teleoperate',
    verbs: ['teleoperate', 'clutch', 'engage-console'],
    oiCode: 'OI-2201',
    cites: ['OI-2904'],
    confidence: 0.7,
    description: 'Hands instrument control to the surgeon console.',
  },
]);

const WAREHOUSE_RULES: CorpusRule[] = block('warehouse', WAREHOUSE, [
  {
    slug: 'pick-tote',
    verbs: ['pick-tote', 'retrieve-shelf', 'retrieve-bin', 'present-tote'],
    oiCode: 'OI-2801',
    confidence: 0.92,
    description: 'Goods-to-person retrieval of a tote, bin or shelf.',
  },
  {
    slug: 'put-away',
    verbs: ['put-away', 'store-pallet', 'replenish', 'store'],
    oiCode: 'OI-2801',
    confidence: 0.9,
    description: 'Stores or replenishes stock at a location.',
  },
  {
    slug: 'forks',
    verbs: ['lift-pallet', 'lower-forks', 'raise-forks', 'lower-pallet', 'tilt-mast'],
    oiCode: 'OI-1906',
    cites: ['OI-2903', 'OI-2906'],
    confidence: 0.9,
    description: 'Load handling with forks or a mast.',
  },
  {
    slug: 'travel',
    verbs: ['travel', 'drive-to-station', 'go-to-station', 'navigate-to', 'follow-route'],
    oiCode: 'OI-1603',
    cites: ['OI-2906', 'OI-2903'],
    confidence: 0.88,
    description: 'Travel of an AGV, AMR or truck through shared aisles.',
  },
  {
    slug: 'vda-order',
    verbs: ['order', 'instant-action', 'start-order'],
    oiCode: 'OI-2801',
    cites: ['OI-2906'],
    confidence: 0.6,
    description: 'A fleet-manager order; what it does depends on its nodes and actions.',
  },
  {
    slug: 'vda-order-travel',
    verbs: ['order', 'start-order'],
    oiCode: 'OI-1603',
    confidence: 0.55,
    description: 'An order is also a travel command along its edges.',
  },
  {
    slug: 'sort',
    verbs: ['sort', 'divert', 'induct', 'merge-streams'],
    oiCode: 'OI-2802',
    confidence: 0.9,
    description: 'Sorts or diverts items on a sorter or cross-dock.',
  },
  {
    slug: 'trailer',
    verbs: ['load-trailer', 'unload-trailer', 'dock-trailer'],
    oiCode: 'OI-2803',
    cites: ['OI-2906'],
    confidence: 0.9,
    description: 'Loads or unloads a trailer at the dock.',
  },
  {
    slug: 'charge',
    verbs: ['charge', 'dock-for-charging', 'swap-battery'],
    oiCode: 'OI-1804',
    confidence: 0.8,
    description: 'Sends a vehicle to charge or exchanges its battery.',
  },
  {
    slug: 'cold-store',
    verbs: ['enter-freezer', 'store-frozen', 'set-zone-temperature'],
    oiCode: 'OI-2806',
    confidence: 0.88,
    description: 'Operations inside the temperature-controlled zone.',
  },
  {
    slug: 'pause',
    verbs: ['pause', 'resume', 'cancel-order'],
    oiCode: 'OI-2801',
    confidence: 0.65,
    description: 'Pauses, resumes or cancels the current job of a vehicle.',
  },
]);

const ROAD_RULES: CorpusRule[] = block('road', ROAD, [
  {
    slug: 'maneuver',
    verbs: ['change-lane', 'overtake', 'merge', 'turn-left', 'turn-right', 'u-turn'],
    oiCode: 'OI-2001',
    cites: ['OI-2906'],
    confidence: 0.93,
    description: 'Tactical driving manoeuvres among other road users.',
  },
  {
    slug: 'longitudinal',
    verbs: ['accelerate', 'brake', 'set-speed', 'cruise', 'stop-vehicle'],
    oiCode: 'OI-2001',
    cites: ['OI-2906'],
    confidence: 0.88,
    description: 'Speed keeping and braking.',
  },
  {
    slug: 'park',
    verbs: ['park', 'unpark', 'pull-over', 'minimal-risk-maneuver'],
    oiCode: 'OI-2001',
    cites: ['OI-2906'],
    confidence: 0.9,
    description: 'Parking and stopping at the roadside.',
  },
  {
    slug: 'drive',
    verbs: ['drive', 'drive-to', 'go-to'],
    oiCode: 'OI-2001',
    cites: ['OI-2906'],
    confidence: 0.7,
    description: 'A generic driving request.',
  },
  {
    slug: 'drive-mission',
    verbs: ['drive', 'drive-to', 'go-to'],
    oiCode: 'OI-2003',
    confidence: 0.55,
    description: 'A driving request may start a trip rather than a single manoeuvre.',
  },
  {
    slug: 'sensor-fusion',
    verbs: ['fuse-sensors', 'update-perception', 'recalibrate-fusion', 'switch-sensor-set'],
    oiCode: 'OI-2002',
    confidence: 0.9,
    description: 'Changes how perception combines its inputs.',
  },
  {
    slug: 'trip',
    verbs: ['plan-trip', 'set-destination', 'plan-route', 'reroute'],
    oiCode: 'OI-2003',
    confidence: 0.92,
    description: 'Plans or changes a trip.',
  },
  {
    slug: 'v2x',
    verbs: ['broadcast-v2x', 'send-cam', 'request-signal-priority', 'send-denm'],
    oiCode: 'OI-2004',
    confidence: 0.93,
    description: 'Vehicle-to-everything messages.',
  },
  {
    slug: 'handoff',
    verbs: ['request-takeover', 'hand-over-control', 'engage-autopilot', 'disengage-autopilot'],
    oiCode: 'OI-2005',
    cites: ['OI-2904'],
    confidence: 0.93,
    description: 'Transfers control between the automation and a driver.',
  },
  {
    slug: 'health',
    verbs: ['run-diagnostics', 'report-fault', 'check-tires', 'install-update', 'ota-update'],
    oiCode: 'OI-2006',
    confidence: 0.88,
    description: 'Diagnostics and software updates of the vehicle.',
  },
  {
    slug: 'fleet',
    verbs: ['dispatch-vehicle', 'rebalance-fleet', 'assign-ride', 'return-to-depot'],
    oiCode: 'OI-2007',
    confidence: 0.9,
    description: 'Fleet-level dispatch and positioning.',
  },
  {
    slug: 'last-mile',
    verbs: ['deliver-parcel', 'drop-off', 'open-locker', 'hand-over-parcel'],
    oiCode: 'OI-2804',
    cites: ['OI-2903'],
    confidence: 0.9,
    description: 'Final delivery to the recipient, often on sidewalks.',
  },
  {
    slug: 'yard',
    verbs: ['couple-trailer', 'uncouple-trailer', 'move-trailer', 'spot-trailer'],
    oiCode: 'OI-2803',
    cites: ['OI-2906'],
    confidence: 0.92,
    description: 'Yard tractor work with trailers.',
  },
  {
    slug: 'reefer',
    verbs: ['set-reefer-temperature', 'precool', 'check-cold-chain'],
    oiCode: 'OI-2806',
    confidence: 0.92,
    description: 'Temperature control of refrigerated cargo.',
  },
]);

const ENERGY_RULES: CorpusRule[] = [
  ...block('energy', ENERGY, [
    {
      slug: 'generation',
      verbs: ['start-generator', 'stop-generator', 'sync-generator', 'ramp-output', 'trip-unit'],
      oiCode: 'OI-2601',
      cites: ['OI-2905'],
      confidence: 0.92,
      description: 'Starts, synchronises or ramps a generating unit.',
    },
    {
      slug: 'curtail',
      verbs: ['curtail-output', 'set-active-power', 'set-reactive-power'],
      oiCode: 'OI-2601',
      confidence: 0.88,
      description: 'Sets the output of a generator or inverter.',
    },
    {
      slug: 'grid',
      verbs: ['set-frequency-reserve', 'balance-load', 'island', 'reconnect', 'black-start'],
      oiCode: 'OI-2602',
      confidence: 0.9,
      description: 'Grid-level balancing and restoration.',
    },
    {
      slug: 'switching',
      verbs: ['open', 'close', 'trip', 'rack-out', 'rack-in'],
      objects: ['*breaker*', '*switch*', '*recloser*', '*disconnector*', '*feeder*'],
      oiCode: 'OI-2603',
      cites: ['OI-2905'],
      confidence: 0.93,
      description: 'Operates switchgear on a live network.',
    },
    {
      slug: 'isolate',
      verbs: ['isolate-line', 'switch-feeder', 'transfer-load', 'earth-line'],
      oiCode: 'OI-2603',
      cites: ['OI-2905'],
      confidence: 0.9,
      description: 'Isolates or reconfigures part of the distribution network.',
    },
    {
      slug: 'storage',
      verbs: ['charge-battery', 'discharge-battery', 'set-soc-limit', 'start-storage'],
      oiCode: 'OI-2604',
      confidence: 0.92,
      description: 'Charges or discharges stationary storage.',
    },
    {
      slug: 'demand-response',
      verbs: ['curtail-load', 'shed-load', 'shift-load', 'restore-load'],
      oiCode: 'OI-2605',
      confidence: 0.92,
      description: 'Changes consumption on request of the grid.',
    },
    {
      slug: 'meter',
      verbs: ['read-meter', 'disconnect-meter', 'reconnect-meter', 'replace-meter'],
      oiCode: 'OI-2606',
      confidence: 0.9,
      description: 'Field work and remote operations on meters.',
    },
    {
      slug: 'line-inspection',
      verbs: ['inspect-line', 'patrol-line', 'inspect-insulator'],
      oiCode: 'OI-2606',
      cites: ['OI-2902'],
      confidence: 0.86,
      description: 'Inspection of overhead lines and field assets.',
    },
    {
      slug: 'energize',
      verbs: ['energize', 'de-energize', 'power-on', 'power-off'],
      oiCode: 'OI-1804',
      cites: ['OI-2905'],
      confidence: 0.82,
      description: 'Switches supply to an asset or section.',
    },
  ]),
  ...block('energy', NUCLEAR, [
    {
      slug: 'fuel-handling',
      verbs: ['move-fuel-assembly', 'load-fuel', 'unload-fuel', 'inspect-reactor'],
      oiCode: 'OI-2501',
      cites: ['OI-2905', 'OI-2903'],
      confidence: 0.94,
      description: 'Fuel handling and in-vessel inspection at a nuclear plant.',
    },
    {
      slug: 'rod-control',
      verbs: ['insert-rods', 'withdraw-rods', 'scram'],
      oiCode: 'OI-2501',
      cites: ['OI-2901'],
      confidence: 0.9,
      description: 'Moves control rods.',
    },
  ]),
];

const MINING_RULES: CorpusRule[] = block('mining', MINING, [
  {
    slug: 'drill',
    verbs: ['drill-hole', 'drill-pattern', 'drill'],
    oiCode: 'OI-2701',
    cites: ['OI-2906'],
    confidence: 0.9,
    description: 'Drills blast or exploration holes.',
  },
  {
    slug: 'blast',
    verbs: ['charge-blasthole', 'blast', 'fire-blast', 'arm-blast'],
    oiCode: 'OI-2701',
    cites: ['OI-2903', 'OI-2902'],
    confidence: 0.95,
    description: 'Charges and initiates a blast.',
  },
  {
    slug: 'load-haul',
    verbs: ['load-truck', 'haul', 'dump', 'tram', 'muck'],
    oiCode: 'OI-2702',
    cites: ['OI-2906'],
    confidence: 0.9,
    description: 'Loading and hauling ore or waste.',
  },
  {
    slug: 'haul-route',
    verbs: ['drive-to', 'navigate-to', 'go-to'],
    oiCode: 'OI-2702',
    cites: ['OI-2906', 'OI-2902'],
    confidence: 0.75,
    description: 'Travel of an autonomous haul truck on the haul road.',
  },
  {
    slug: 'processing',
    verbs: ['crush', 'grind', 'start-mill', 'start-flotation', 'float'],
    oiCode: 'OI-2703',
    cites: ['OI-2905'],
    confidence: 0.9,
    description: 'Comminution and separation in the plant.',
  },
  {
    slug: 'wellfield',
    verbs: ['inject', 'start-pump', 'stop-pump', 'pump-wellfield', 'adjust-flow'],
    oiCode: 'OI-2704',
    confidence: 0.86,
    description: 'In-situ recovery and dewatering wells.',
  },
  {
    slug: 'geotech',
    verbs: ['monitor-slope', 'scan-highwall', 'measure-convergence', 'read-piezometer'],
    oiCode: 'OI-2705',
    confidence: 0.92,
    description: 'Ground movement and stability monitoring.',
  },
  {
    slug: 'gas',
    verbs: ['measure-gas', 'sample-air', 'check-ventilation'],
    oiCode: 'OI-1705',
    cites: ['OI-2903'],
    confidence: 0.88,
    description: 'Atmosphere checks underground.',
  },
  {
    slug: 'confined',
    verbs: ['enter-confined-space', 'inspect-chute', 'inspect-bin'],
    oiCode: 'OI-2506',
    cites: ['OI-2905'],
    confidence: 0.9,
    description: 'Entry into chutes, bins and other confined spaces.',
  },
  {
    slug: 'ventilation',
    verbs: ['start-fan', 'stop-fan', 'set-ventilation'],
    oiCode: 'OI-1803',
    confidence: 0.84,
    description: 'Underground ventilation control.',
  },
]);

const CONSTRUCTION_RULES: CorpusRule[] = block('construction', CONSTRUCTION, [
  {
    slug: 'site-prep',
    verbs: ['clear-site', 'survey-site', 'stake-out', 'mark-layout'],
    oiCode: 'OI-2401',
    confidence: 0.9,
    description: 'Prepares and lays out the site before earthworks.',
  },
  {
    slug: 'earthworks',
    verbs: ['excavate', 'dig', 'trench', 'backfill', 'grade', 'compact'],
    oiCode: 'OI-2402',
    cites: ['OI-2906', 'OI-2903'],
    confidence: 0.92,
    description: 'Moves soil with excavators, dozers and compactors.',
  },
  {
    slug: 'structural',
    verbs: ['pour-concrete', 'weld-beam', 'erect-formwork', 'lay-brick', 'print-structure', 'tie-rebar'],
    oiCode: 'OI-2403',
    confidence: 0.9,
    description: 'Builds the structure itself.',
  },
  {
    slug: 'demolition',
    verbs: ['demolish', 'breach-wall', 'break-concrete', 'dismantle'],
    oiCode: 'OI-2404',
    cites: ['OI-2903'],
    confidence: 0.93,
    description: 'Takes structures down.',
  },
  {
    slug: 'crane',
    verbs: ['lift-load', 'hoist', 'slew', 'lower-load', 'luff', 'trolley'],
    oiCode: 'OI-2405',
    cites: ['OI-2903', 'OI-2906'],
    confidence: 0.93,
    description: 'Crane and hoist operations over the site.',
  },
  {
    slug: 'lift-generic',
    verbs: ['lift', 'raise', 'lower'],
    oiCode: 'OI-2405',
    cites: ['OI-2903'],
    confidence: 0.65,
    description: 'A generic lifting request on site.',
  },
  {
    slug: 'coordination',
    verbs: ['coordinate-equipment', 'assign-zone', 'sequence-machines', 'hand-over-zone'],
    oiCode: 'OI-2406',
    cites: ['OI-2906'],
    confidence: 0.9,
    description: 'Shares the site between several heavy machines.',
  },
  {
    slug: 'remediation',
    verbs: ['remediate-soil', 'decontaminate', 'remove-asbestos', 'excavate-contaminated'],
    oiCode: 'OI-2504',
    cites: ['OI-2903'],
    confidence: 0.9,
    description: 'Cleans up contaminated ground or materials.',
  },
  {
    slug: 'drive-machine',
    verbs: ['drive', 'travel', 'track-to'],
    oiCode: 'OI-2406',
    cites: ['OI-2906'],
    confidence: 0.6,
    description: 'Moves a machine across the site.',
  },
]);

const MARINE_RULES: CorpusRule[] = [
  ...block('marine', MARINE, [
    {
      slug: 'navigate',
      verbs: ['set-course', 'set-heading', 'navigate-to', 'follow-route', 'hold-station'],
      oiCode: 'OI-1606',
      cites: ['OI-2906'],
      confidence: 0.9,
      description: 'Steers a surface vessel along a course.',
    },
    {
      slug: 'berthing',
      verbs: ['berth', 'unberth', 'moor', 'anchor', 'weigh-anchor'],
      oiCode: 'OI-1606',
      cites: ['OI-2906', 'OI-2903'],
      confidence: 0.9,
      description: 'Close-quarters manoeuvring in port.',
    },
    {
      slug: 'rov-launch',
      verbs: ['launch-rov', 'recover-rov', 'dive', 'surface'],
      oiCode: 'OI-2502',
      cites: ['OI-2903'],
      confidence: 0.92,
      description: 'Launch, recovery and depth changes of an ROV or AUV.',
    },
    {
      slug: 'subsea-intervention',
      verbs: ['operate-valve', 'cut-cable', 'inspect-pipeline', 'clean-hull', 'intervene'],
      oiCode: 'OI-2502',
      confidence: 0.88,
      description: 'Subsea inspection and intervention work.',
    },
    {
      slug: 'sonar',
      verbs: ['sonar-scan', 'map-seabed', 'survey-seabed'],
      oiCode: 'OI-1702',
      confidence: 0.88,
      description: 'Acoustic range and depth sensing.',
    },
    {
      slug: 'manipulator',
      verbs: ['pick', 'grasp', 'place', 'recover-object'],
      oiCode: 'OI-1502',
      confidence: 0.7,
      description: 'Work-class manipulator tasks on an ROV.',
    },
    {
      slug: 'sail-generic',
      verbs: ['move', 'go', 'sail'],
      oiCode: 'OI-1606',
      cites: ['OI-2906'],
      confidence: 0.6,
      description: 'A generic motion request for a vessel.',
    },
  ]),
  ...block('marine', PORT, [
    {
      slug: 'container-moves',
      verbs: ['load-container', 'unload-container', 'move-container', 'stack-container'],
      oiCode: 'OI-2805',
      cites: ['OI-2903', 'OI-2906'],
      confidence: 0.93,
      description: 'Ship-to-shore and yard container moves.',
    },
    {
      slug: 'lashing',
      verbs: ['lash', 'unlash', 'secure-cargo'],
      oiCode: 'OI-2805',
      cites: ['OI-2903'],
      confidence: 0.88,
      description: 'Secures or releases cargo aboard.',
    },
    {
      slug: 'reefer-port',
      verbs: ['plug-reefer', 'unplug-reefer', 'check-reefer'],
      oiCode: 'OI-2806',
      confidence: 0.9,
      description: 'Reefer container power and temperature checks.',
    },
  ]),
];

const AGRICULTURE_RULES: CorpusRule[] = block('agriculture', AGRICULTURE, [
  {
    slug: 'field-work',
    verbs: ['plow', 'till', 'seed', 'plant', 'harvest', 'mow', 'bale'],
    oiCode: 'OI-2301',
    cites: ['OI-2906', 'OI-2903'],
    confidence: 0.92,
    description: 'Tractor and implement work in the field.',
  },
  {
    slug: 'field-travel',
    verbs: ['drive-to', 'follow-swath', 'navigate-to', 'headland-turn'],
    oiCode: 'OI-2301',
    cites: ['OI-2906'],
    confidence: 0.8,
    description: 'Travel between and along swaths.',
  },
  {
    slug: 'irrigation',
    verbs: ['irrigate', 'start-irrigation', 'stop-irrigation', 'open-sprinkler', 'set-pivot'],
    oiCode: 'OI-2302',
    confidence: 0.92,
    description: 'Water application.',
  },
  {
    slug: 'crop-protection',
    verbs: ['spray-pesticide', 'apply-herbicide', 'weed', 'spot-spray'],
    oiCode: 'OI-2303',
    cites: ['OI-2903'],
    confidence: 0.92,
    description: 'Applies crop protection products or removes weeds.',
  },
  {
    slug: 'spray',
    verbs: ['spray'],
    oiCode: 'OI-2303',
    cites: ['OI-2903'],
    confidence: 0.7,
    description: 'A spraying pass; usually crop protection, sometimes fertiliser.',
  },
  {
    slug: 'livestock',
    verbs: ['milk', 'feed-livestock', 'herd', 'sort-animals', 'clean-barn'],
    oiCode: 'OI-2304',
    cites: ['OI-2903'],
    confidence: 0.9,
    description: 'Works with or around animals.',
  },
  {
    slug: 'greenhouse',
    verbs: ['set-climate', 'open-vents', 'close-vents', 'set-lighting', 'set-shading'],
    oiCode: 'OI-2305',
    confidence: 0.9,
    description: 'Controls the climate of a greenhouse or vertical farm.',
  },
  {
    slug: 'yield',
    verbs: ['count-crop', 'estimate-yield', 'inventory-silo', 'map-yield'],
    oiCode: 'OI-2306',
    confidence: 0.92,
    description: 'Measures crop and stored inventory.',
  },
  {
    slug: 'soil',
    verbs: ['sample-soil', 'measure-soil-moisture', 'read-weather'],
    oiCode: 'OI-1705',
    confidence: 0.88,
    description: 'Soil and weather sensing.',
  },
  {
    slug: 'pto',
    verbs: ['engage-pto', 'disengage-pto', 'raise-hitch', 'lower-hitch'],
    oiCode: 'OI-1801',
    cites: ['OI-2904', 'OI-2903'],
    confidence: 0.9,
    description: 'Drives the implement through the power take-off or hitch.',
  },
]);

const SAFETY_RULES: CorpusRule[] = block(
  'safety',
  ['*'],
  [
    {
      slug: 'emergency-stop',
      verbs: ['emergency-stop', 'e-stop', 'estop', 'trigger-emergency-stop'],
      oiCode: 'OI-2901',
      cites: ['OI-2901'],
      confidence: 0.97,
      description: 'Triggers the emergency stop.',
    },
    {
      slug: 'reset-emergency-stop',
      verbs: ['reset-emergency-stop', 'reset-estop', 'release-emergency-stop'],
      oiCode: 'OI-2901',
      cites: ['OI-2901'],
      confidence: 0.95,
      description: 'Clears a latched emergency stop; motion may resume afterwards.',
    },
    {
      slug: 'protective-stop',
      verbs: ['protective-stop', 'safe-stop', 'safe-torque-off'],
      oiCode: 'OI-2904',
      cites: ['OI-2904'],
      confidence: 0.95,
      description: 'Commands a monitored safe stop or torque removal.',
    },
    {
      slug: 'geofence',
      verbs: [
        'set-geofence',
        'update-geofence',
        'disable-geofence',
        'define-keep-out-zone',
        'clear-geofence',
      ],
      oiCode: 'OI-2902',
      cites: ['OI-2902'],
      confidence: 0.95,
      description: 'Changes where the machine is allowed to go.',
    },
    {
      slug: 'presence-sensing',
      verbs: ['mute', 'bypass', 'override', 'disable', 'reconfigure'],
      objects: [
        '*light-curtain*',
        '*light curtain*',
        '*safety-scanner*',
        '*presence*',
        '*safety-mat*',
        '*area-scanner*',
      ],
      oiCode: 'OI-2903',
      cites: ['OI-2903'],
      confidence: 0.96,
      description: 'Mutes, bypasses or changes a protective presence-sensing device.',
    },
    {
      slug: 'presence-config',
      verbs: [
        'enable-human-detection',
        'configure-safety-scanner',
        'set-protective-field',
        'set-warning-field',
      ],
      oiCode: 'OI-2903',
      cites: ['OI-2903'],
      confidence: 0.94,
      description: 'Configures human-presence detection.',
    },
    {
      slug: 'safe-motion',
      verbs: [
        'set-safe-speed',
        'set-speed-and-separation',
        'enter-collaborative-mode',
        'exit-collaborative-mode',
        'set-safety-limits',
      ],
      oiCode: 'OI-2904',
      cites: ['OI-2904'],
      confidence: 0.94,
      description: 'Changes safety-rated speed, force or separation limits.',
    },
    {
      slug: 'bypass-limits',
      verbs: ['bypass-safety-limits', 'disable-safety-controller', 'override-speed-limit'],
      oiCode: 'OI-2904',
      cites: ['OI-2904', 'OI-2901'],
      confidence: 0.96,
      description: 'Removes a safety-rated limit.',
    },
    {
      slug: 'lockout',
      verbs: ['apply-lockout', 'remove-lockout', 'tag-out', 'remove-tag', 'verify-zero-energy'],
      oiCode: 'OI-2905',
      cites: ['OI-2905'],
      confidence: 0.95,
      description: 'Lockout / tagout of an energy source.',
    },
    {
      slug: 'collision-avoidance',
      verbs: [
        'disable-collision-avoidance',
        'set-safety-distance',
        'configure-collision-avoidance',
        'update-collision-model',
      ],
      oiCode: 'OI-2906',
      cites: ['OI-2906'],
      confidence: 0.94,
      description: 'Changes collision avoidance or the collision model.',
    },
    {
      slug: 'certification',
      verbs: [
        'run-safety-validation',
        'certify-cell',
        'record-risk-assessment',
        'verify-safety-configuration',
        'sign-off-safety',
      ],
      oiCode: 'OI-2907',
      cites: ['OI-2907'],
      confidence: 0.93,
      description: 'Safety validation, certification and sign-off steps.',
    },
  ],
);

/** The whole corpus, in match-order (earlier rules win ties). */
export const CLASSIFIER_CORPUS: readonly CorpusRule[] = Object.freeze([
  ...SAFETY_RULES,
  ...ROBOT_RULES,
  ...INDUSTRIAL_RULES,
  ...AERIAL_RULES,
  ...SURGICAL_RULES,
  ...WAREHOUSE_RULES,
  ...ROAD_RULES,
  ...ENERGY_RULES,
  ...MINING_RULES,
  ...CONSTRUCTION_RULES,
  ...MARINE_RULES,
  ...AGRICULTURE_RULES,
]);
