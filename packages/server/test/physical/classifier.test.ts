import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { classify } from '../../src/physical/domain/classifier.js';
import { CLASSIFIER_CORPUS, CORPUS_AREAS } from '../../src/physical/domain/classifier-corpus.js';
import { SAFETY_CITATION_PATTERN } from '../../src/physical/domain/physical-types.js';
import {
  getCategory,
  isSafetyCategory,
  listCategories,
  listDomains,
  surfaceOf,
} from '../../src/taxonomy/taxonomy.js';

const RESULT_KEYS = [
  'alternatives',
  'confidence',
  'explanation',
  'failClosed',
  'oiCode',
  'safetyBit',
  'safetyCitations',
];
const PHYSICAL_DOMAINS = listDomains().filter((d) => d.surface === 'physical');

interface Case {
  schema: string;
  verb: string;
  object?: string;
  oiCode: string;
  citations?: string[];
}

/** Goals a customer in each corpus area would send, with the code we expect. */
const AREA_CASES: Record<(typeof CORPUS_AREAS)[number], Case[]> = {
  robot: [
    { schema: 'robot.manipulation/v1', verb: 'pick', object: 'bracket', oiCode: 'OI-1502' },
    {
      schema: 'cobot.ur/v2',
      verb: 'hand-over',
      object: 'Torque wrench to operator',
      oiCode: 'OI-1502',
      citations: ['OI-2903', 'OI-2904'],
    },
    { schema: 'robot.arm/v1', verb: 'screw', oiCode: 'OI-1503' },
    { schema: 'robot.arm/v1', verb: 'polish', oiCode: 'OI-1506', citations: ['OI-2904'] },
    {
      schema: 'ros2.nav2/humble',
      verb: 'navigate-to',
      object: 'dock-4',
      oiCode: 'OI-1603',
      citations: ['OI-2906'],
    },
    { schema: 'robot.navigation/v1', verb: 'plan-path', oiCode: 'OI-1601' },
    { schema: 'robot.quadruped/spot', verb: 'climb-stairs', oiCode: 'OI-1604', citations: ['OI-2906'] },
    { schema: 'robot.eod/v1', verb: 'render-safe', oiCode: 'OI-2505', citations: ['OI-2903'] },
    { schema: 'robot.mobile/v1', verb: 'calibrate-lidar', oiCode: 'OI-1707' },
  ],
  industrial: [
    { schema: 'industrial.line/v1', verb: 'set-line-speed', oiCode: 'OI-1901', citations: ['OI-2904'] },
    { schema: 'cnc.fanuc/v3', verb: 'start-spindle', oiCode: 'OI-1902', citations: ['OI-2904'] },
    {
      schema: 'opcua.plant/v1',
      verb: 'open',
      object: 'coolant-valve-2',
      oiCode: 'OI-1802',
      citations: ['OI-2904'],
    },
    { schema: 'industrial.am/v1', verb: 'start-print', oiCode: 'OI-1903' },
    {
      schema: 'plc.s7/v1',
      verb: 'enter-confined-space',
      oiCode: 'OI-2506',
      citations: ['OI-2903', 'OI-2905'],
    },
  ],
  aerial: [
    { schema: 'aerial.mission/v1', verb: 'takeoff', oiCode: 'OI-2101', citations: ['OI-2902'] },
    { schema: 'mavlink.px4/v2', verb: 'follow-waypoints', oiCode: 'OI-1605', citations: ['OI-2902'] },
    {
      schema: 'uas.delivery/v1',
      verb: 'winch-down',
      object: 'parcel',
      oiCode: 'OI-2103',
      citations: ['OI-2903'],
    },
    { schema: 'drone.ops/v1', verb: 'fly-bvlos', oiCode: 'OI-2105', citations: ['OI-2902', 'OI-2907'] },
    { schema: 'space.servicer/v1', verb: 'grapple', oiCode: 'OI-2503', citations: ['OI-2906'] },
  ],
  surgical: [
    { schema: 'surgical.console/v1', verb: 'incise', oiCode: 'OI-2201', citations: ['OI-2903', 'OI-2904'] },
    { schema: 'medical.table/v1', verb: 'tilt-table', oiCode: 'OI-2202', citations: ['OI-2903'] },
    { schema: 'hospital.pharmacy/v1', verb: 'dispense-medication', oiCode: 'OI-2203' },
    { schema: 'medical.lab/v1', verb: 'centrifuge', oiCode: 'OI-2205' },
  ],
  warehouse: [
    { schema: 'warehouse.g2p/v1', verb: 'pick-tote', oiCode: 'OI-2801' },
    { schema: 'forklift.agv/v1', verb: 'lift-pallet', oiCode: 'OI-1906', citations: ['OI-2903', 'OI-2906'] },
    { schema: 'vda5050/2.0', verb: 'travel', oiCode: 'OI-1603', citations: ['OI-2903', 'OI-2906'] },
    { schema: 'warehouse.sorter/v1', verb: 'divert', oiCode: 'OI-2802' },
  ],
  road: [
    { schema: 'vehicle.av/v1', verb: 'change-lane', oiCode: 'OI-2001', citations: ['OI-2906'] },
    { schema: 'road.shuttle/v1', verb: 'disengage-autopilot', oiCode: 'OI-2005', citations: ['OI-2904'] },
    { schema: 'fleet.robotaxi/v1', verb: 'dispatch-vehicle', oiCode: 'OI-2007' },
    { schema: 'vehicle.yard/v1', verb: 'couple-trailer', oiCode: 'OI-2803', citations: ['OI-2906'] },
    { schema: 'av.delivery/v1', verb: 'deliver-parcel', oiCode: 'OI-2804', citations: ['OI-2903'] },
  ],
  energy: [
    {
      schema: 'grid.substation/v1',
      verb: 'open',
      object: 'Breaker Q12',
      oiCode: 'OI-2603',
      citations: ['OI-2905'],
    },
    { schema: 'energy.bess/v1', verb: 'discharge-battery', oiCode: 'OI-2604' },
    { schema: 'utility.dr/v1', verb: 'shed-load', oiCode: 'OI-2605' },
    {
      schema: 'energy.nuclear/v1',
      verb: 'move-fuel-assembly',
      oiCode: 'OI-2501',
      citations: ['OI-2903', 'OI-2905'],
    },
  ],
  mining: [
    { schema: 'mining.openpit/v1', verb: 'fire-blast', oiCode: 'OI-2701', citations: ['OI-2902', 'OI-2903'] },
    { schema: 'mining.aht/v1', verb: 'haul', oiCode: 'OI-2702', citations: ['OI-2906'] },
    { schema: 'mine.plant/v1', verb: 'start-mill', oiCode: 'OI-2703', citations: ['OI-2905'] },
    { schema: 'mining.geotech/v1', verb: 'scan-highwall', oiCode: 'OI-2705' },
  ],
  construction: [
    {
      schema: 'construction.excavator/v1',
      verb: 'trench',
      oiCode: 'OI-2402',
      citations: ['OI-2903', 'OI-2906'],
    },
    { schema: 'crane.tower/v1', verb: 'slew', oiCode: 'OI-2405', citations: ['OI-2903', 'OI-2906'] },
    { schema: 'site.demolition/v1', verb: 'demolish', oiCode: 'OI-2404', citations: ['OI-2903'] },
    { schema: 'construction.printer/v1', verb: 'print-structure', oiCode: 'OI-2403' },
  ],
  marine: [
    { schema: 'marine.usv/v1', verb: 'set-course', oiCode: 'OI-1606', citations: ['OI-2906'] },
    { schema: 'rov.workclass/v1', verb: 'launch-rov', oiCode: 'OI-2502', citations: ['OI-2903'] },
    {
      schema: 'port.sts-crane/v1',
      verb: 'unload-container',
      oiCode: 'OI-2805',
      citations: ['OI-2903', 'OI-2906'],
    },
    { schema: 'subsea.auv/v1', verb: 'map-seabed', oiCode: 'OI-1702' },
  ],
  agriculture: [
    {
      schema: 'agriculture.tractor/v1',
      verb: 'harvest',
      oiCode: 'OI-2301',
      citations: ['OI-2903', 'OI-2906'],
    },
    { schema: 'farm.irrigation/v1', verb: 'set-pivot', oiCode: 'OI-2302' },
    { schema: 'greenhouse.climate/v1', verb: 'open-vents', oiCode: 'OI-2305' },
    { schema: 'isobus/tc', verb: 'engage-pto', oiCode: 'OI-1801', citations: ['OI-2903', 'OI-2904'] },
    { schema: 'livestock.dairy/v1', verb: 'milk', oiCode: 'OI-2304', citations: ['OI-2903'] },
  ],
};

describe('classifier corpus', () => {
  test('has at least 150 rules with unique ids', () => {
    assert.ok(CLASSIFIER_CORPUS.length >= 150, `only ${CLASSIFIER_CORPUS.length} rules`);
    assert.equal(new Set(CLASSIFIER_CORPUS.map((r) => r.id)).size, CLASSIFIER_CORPUS.length);
  });

  test('every rule is well-formed: physical code, safety citations, confidence band, kebab verbs', () => {
    for (const rule of CLASSIFIER_CORPUS) {
      assert.equal(surfaceOf(rule.oiCode), 'physical', `${rule.id}: ${rule.oiCode}`);
      for (const citation of rule.citations) {
        assert.ok(isSafetyCategory(citation), `${rule.id} cites ${citation}`);
      }
      assert.ok(rule.confidence >= 0.4 && rule.confidence <= 0.99, `${rule.id}: ${rule.confidence}`);
      assert.ok(rule.verbs.length > 0 && rule.schemas.length > 0, rule.id);
      for (const verb of rule.verbs) assert.match(verb, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, `${rule.id}: ${verb}`);
      for (const glob of [...rule.schemas, ...(rule.objects ?? [])]) {
        assert.equal(glob, glob.toLowerCase(), `${rule.id}: globs are matched against lower-cased text`);
      }
      assert.ok(rule.description.length > 10, rule.id);
    }
  });

  test('covers all eleven areas of the document', () => {
    assert.equal(CORPUS_AREAS.length, 11);
    for (const area of CORPUS_AREAS) {
      assert.ok(CLASSIFIER_CORPUS.filter((r) => r.area === area).length >= 5, area);
    }
  });

  test('covers every physical domain OI-1500 … OI-2900 and every one of their categories', () => {
    assert.equal(PHYSICAL_DOMAINS.length, 15);
    const codes = new Set(CLASSIFIER_CORPUS.map((r) => r.oiCode));
    for (const domain of PHYSICAL_DOMAINS) {
      for (const category of listCategories(domain.code)) {
        assert.ok(codes.has(category.code), `no rule classifies into ${category.code} ${category.name}`);
      }
    }
  });

  test('each rule is reachable: a goal built from it classifies to its code or to a more confident one', () => {
    for (const rule of CLASSIFIER_CORPUS) {
      const schema = (rule.schemas[0] as string).replaceAll('*', 'x').replaceAll('?', 'y');
      const object = rule.objects === undefined ? null : (rule.objects[0] as string).replaceAll('*', 'z');
      const result = classify({ schema, verb: rule.verbs[0] as string, object });
      assert.equal(result.failClosed, false, rule.id);
      const reported = [result, ...result.alternatives];
      const self = reported.find((h) => h.oiCode === rule.oiCode);
      if (self === undefined) {
        assert.equal(result.alternatives.length, 3, `${rule.id} fell off a full list of alternatives`);
      } else {
        assert.ok(self.confidence >= rule.confidence, rule.id);
      }
      assert.ok(result.confidence >= rule.confidence, rule.id);
    }
  });
});

describe('classify: one case table per corpus area', () => {
  for (const area of CORPUS_AREAS) {
    test(area, () => {
      for (const c of AREA_CASES[area]) {
        const result = classify({ schema: c.schema, verb: c.verb, object: c.object ?? null });
        const label = `${c.schema} ${c.verb} ${c.object ?? ''}`;
        assert.equal(result.oiCode, c.oiCode, label);
        assert.equal(result.failClosed, false, label);
        assert.deepEqual(result.safetyCitations, c.citations ?? [], label);
        assert.equal(result.safetyBit, (c.citations ?? []).length > 0, label);
        assert.match(result.explanation ?? '', new RegExp(`^rule ${area}\\.`), label);
      }
    });
  }

  test('safety functions classify into OI-29NN in any schema and cite themselves', () => {
    const cases: Array<[string, string, string | null, string]> = [
      ['robot.arm/v1', 'emergency-stop', null, 'OI-2901'],
      ['acme.private/v9', 'reset-estop', null, 'OI-2901'],
      ['drone.ops/v1', 'set-geofence', null, 'OI-2902'],
      ['industrial.cell/v1', 'mute', 'Light-Curtain-3', 'OI-2903'],
      ['cobot.ur/v2', 'enter-collaborative-mode', null, 'OI-2904'],
      ['energy.plant/v1', 'apply-lockout', 'turbine-2', 'OI-2905'],
      ['vehicle.av/v1', 'disable-collision-avoidance', null, 'OI-2906'],
      ['robot.arm/v1', 'certify-cell', null, 'OI-2907'],
    ];
    for (const [schema, verb, object, code] of cases) {
      const result = classify({ schema, verb, object });
      assert.equal(result.oiCode, code, verb);
      assert.equal(result.safetyBit, true, verb);
      assert.ok(result.safetyCitations.includes(code), verb);
    }
  });

  test('an object pattern makes the specific rule win over the generic reading', () => {
    assert.equal(
      classify({ schema: 'industrial.cell/v1', verb: 'disable', object: 'safety-scanner-1' }).oiCode,
      'OI-2903',
    );
    // "disable" alone is not a corpus verb anywhere: out of corpus.
    assert.equal(
      classify({ schema: 'industrial.cell/v1', verb: 'disable', object: 'conveyor' }).failClosed,
      true,
    );
  });

  test('ambiguous verbs report ranked alternatives and merge their citations', () => {
    const result = classify({ schema: 'robot.arm/v1', verb: 'move-arm' });
    assert.equal(result.oiCode, 'OI-1801');
    assert.deepEqual(result.alternatives, [{ oiCode: 'OI-2906', confidence: 0.5 }]);
    // The collision-avoidance reading only ranks second, yet its category is cited.
    assert.deepEqual(result.safetyCitations, ['OI-2904', 'OI-2906']);

    const grasp = classify({ schema: 'robot.manipulation/v1', verb: 'grasp' });
    assert.deepEqual(
      { oiCode: grasp.oiCode, confidence: grasp.confidence, alternatives: grasp.alternatives },
      { oiCode: 'OI-1502', confidence: 0.72, alternatives: [{ oiCode: 'OI-1501', confidence: 0.55 }] },
    );
  });

  test('schema, verb and object are matched case-insensitively after trimming', () => {
    const a = classify({ schema: 'Robot.Manipulation/V1', verb: ' PICK ', object: null });
    const b = classify({ schema: 'robot.manipulation/v1', verb: 'pick', object: null });
    assert.equal(a.oiCode, b.oiCode);
    assert.equal(a.confidence, b.confidence);
  });
});

describe('classify: out of corpus', () => {
  const OUT = [
    { schema: 'acme.kitchen/v1', verb: 'bake', object: 'bread' },
    { schema: 'acme.kitchen/v1', verb: 'pick', object: null },
    { schema: 'robot.manipulation/v1', verb: 'dance' },
    { schema: '', verb: '' },
    { schema: 'grid.substation/v1', verb: 'open', object: 'the pod bay doors' },
  ];
  for (const goal of OUT) {
    test(`${goal.schema || '(empty)'} ${goal.verb || '(empty)'}`, () => {
      const result = classify(goal);
      assert.deepEqual(Object.keys(result).sort(), RESULT_KEYS);
      assert.equal(result.oiCode, 'OI-1800');
      assert.equal(result.confidence, 0.2);
      assert.equal(result.failClosed, true);
      assert.equal(result.safetyBit, false);
      assert.deepEqual(result.safetyCitations, []);
      assert.deepEqual(result.alternatives, []);
      assert.match(result.explanation ?? '', /failing closed/);
    });
  }

  test('the explanation says where a known verb would have matched', () => {
    const result = classify({ schema: 'acme.kitchen/v1', verb: 'pick' });
    assert.match(result.explanation ?? '', /known only for other schemas or objects, in: robot manipulation/);
  });
});

describe('classify: properties', () => {
  const corpusVerbs = [...new Set(CLASSIFIER_CORPUS.flatMap((r) => r.verbs))];
  const schemaArb = fc.oneof(
    fc.constantFrom(...CLASSIFIER_CORPUS.flatMap((r) => r.schemas)).map((s) => s.replaceAll('*', 'v1')),
    fc.string({ maxLength: 30 }),
  );
  const goalArb = fc.record({
    schema: schemaArb,
    verb: fc.oneof(fc.constantFrom(...corpusVerbs), fc.string({ maxLength: 20 })),
    object: fc.option(
      fc.oneof(fc.constantFrom('operator', 'valve-3', 'breaker q1', 'light-curtain'), fc.string()),
      {
        nil: null,
      },
    ),
  });

  test('the result always has the document shape and consistent fields', () => {
    fc.assert(
      fc.property(goalArb, (goal) => {
        const r = classify(goal);
        assert.deepEqual(Object.keys(r).sort(), RESULT_KEYS);
        assert.match(r.oiCode, /^OI-\d{3,4}$/);
        assert.ok(getCategory(r.oiCode) !== undefined || r.oiCode === 'OI-1800');
        assert.ok(r.confidence >= 0 && r.confidence <= 1);
        assert.ok(r.alternatives.length <= 3);
        const codes = [r.oiCode, ...r.alternatives.map((a) => a.oiCode)];
        assert.equal(new Set(codes).size, codes.length, 'each code once');
        let previous = r.confidence;
        for (const alternative of r.alternatives) {
          assert.ok(alternative.confidence <= previous, 'alternatives are lower-ranked');
          previous = alternative.confidence;
        }
        for (const citation of r.safetyCitations) assert.match(citation, SAFETY_CITATION_PATTERN);
        assert.deepEqual(r.safetyCitations, [...new Set(r.safetyCitations)].sort());
        assert.equal(r.safetyBit, r.safetyCitations.length > 0);
        if (r.failClosed) {
          assert.deepEqual([r.oiCode, r.confidence, r.alternatives.length], ['OI-1800', 0.2, 0]);
        }
        if (isSafetyCategory(r.oiCode)) assert.ok(r.safetyCitations.includes(r.oiCode));
        assert.equal(typeof r.explanation, 'string');
      }),
      { numRuns: 2_000 },
    );
  });
});
