/**
 * The Open Intent taxonomy, version 2.1 of the wire format (spec 04-taxonomy.md): 29 domains and
 * 173 categories. Codes and names are the fixed part and are copied from the specification; the
 * one-line descriptions are our own. Within a major version codes are append-only: never renumber
 * or remove an entry here.
 */

export type TaxonomySurface = 'digital' | 'physical';

export interface CategoryData {
  readonly code: string;
  readonly name: string;
  readonly description: string;
  /** Set on the `OI-29NN` categories, the ones `safetyCitations` cite and that set `safetyBit`. */
  readonly safety?: true;
}

export interface DomainData {
  readonly code: string;
  readonly name: string;
  readonly description: string;
  /** `OI-100` … `OI-1400` are digital operations (the intent surface); `OI-1500` … `OI-2900` physical. */
  readonly surface: TaxonomySurface;
  readonly categories: readonly CategoryData[];
}

export const TAXONOMY_VERSION = '2.1';

export const TAXONOMY_DATA: readonly DomainData[] = [
  {
    code: 'OI-100',
    name: 'Software Development',
    description: 'Work on source code and the pipeline that turns it into running software.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-101',
        name: 'Code Management',
        description: 'Reading and changing repositories, branches, commits and tags.',
      },
      {
        code: 'OI-102',
        name: 'Build & CI',
        description: 'Running builds, scripts and continuous-integration jobs.',
      },
      {
        code: 'OI-103',
        name: 'Testing & QA',
        description: 'Running and maintaining automated and manual test suites.',
      },
      {
        code: 'OI-104',
        name: 'Deployment & Release',
        description: 'Shipping, promoting and rolling back software versions.',
      },
      {
        code: 'OI-105',
        name: 'Change Control',
        description: 'Reviewing, approving and merging proposed changes.',
      },
      {
        code: 'OI-106',
        name: 'Architecture & Design',
        description: 'Shaping system structure, interfaces and technical decisions.',
      },
      {
        code: 'OI-107',
        name: 'Package & Dependency',
        description: 'Adding, upgrading and auditing third-party libraries.',
      },
    ],
  },
  {
    code: 'OI-200',
    name: 'Security Operations',
    description: 'Keeping systems and data protected against threats and misuse.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-201',
        name: 'Threat Detection',
        description: 'Spotting suspicious activity in logs, alerts and telemetry.',
      },
      {
        code: 'OI-202',
        name: 'Incident Response',
        description: 'Containing, investigating and recovering from security incidents.',
      },
      {
        code: 'OI-203',
        name: 'Vulnerability Management',
        description: 'Finding, ranking and fixing weaknesses in systems.',
      },
      {
        code: 'OI-204',
        name: 'Identity & Access',
        description: 'Granting, reviewing and removing user and service permissions.',
      },
      {
        code: 'OI-205',
        name: 'Credential Management',
        description: 'Issuing, storing and rotating secrets, keys and certificates.',
      },
      {
        code: 'OI-206',
        name: 'Security Policy',
        description: 'Defining and enforcing the rules systems must follow.',
      },
      {
        code: 'OI-207',
        name: 'Data Protection',
        description: 'Classifying, encrypting and controlling access to sensitive data.',
      },
    ],
  },
  {
    code: 'OI-300',
    name: 'Infrastructure',
    description: 'Running the servers, networks and databases systems depend on.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-301',
        name: 'Provisioning',
        description: 'Creating and tearing down compute, storage and network resources.',
      },
      {
        code: 'OI-302',
        name: 'Scaling & Capacity',
        description: 'Adjusting resources to match current and expected load.',
      },
      {
        code: 'OI-303',
        name: 'Monitoring & Observability',
        description: 'Collecting metrics, logs and traces to see how systems behave.',
      },
      {
        code: 'OI-304',
        name: 'Disaster Recovery',
        description: 'Backing up and restoring systems after major failures.',
      },
      {
        code: 'OI-305',
        name: 'Configuration Management',
        description: 'Changing system settings, schemas and stored data structures.',
      },
      {
        code: 'OI-306',
        name: 'Maintenance',
        description: 'Patching, upgrading and servicing running infrastructure.',
      },
      {
        code: 'OI-307',
        name: 'Network Operations',
        description: 'Managing routing, firewalls, DNS and connectivity.',
      },
    ],
  },
  {
    code: 'OI-400',
    name: 'Cloud Operations',
    description: 'Operating hosted platforms and services bought from cloud providers.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-401',
        name: 'SaaS Management',
        description: 'Administering subscriptions and settings of hosted applications.',
      },
      {
        code: 'OI-402',
        name: 'Platform Operations',
        description: 'Running shared platforms that teams deploy onto.',
      },
      {
        code: 'OI-403',
        name: 'Service Catalog',
        description: 'Publishing and requesting standard services and offerings.',
      },
      {
        code: 'OI-404',
        name: 'SLA Management',
        description: 'Tracking availability and performance commitments of cloud services.',
      },
      {
        code: 'OI-405',
        name: 'Resource Optimization',
        description: 'Reducing waste and cost in cloud resource usage.',
      },
      {
        code: 'OI-406',
        name: 'Multi-Cloud Governance',
        description: 'Applying consistent rules across several cloud providers.',
      },
    ],
  },
  {
    code: 'OI-500',
    name: 'Financial Operations',
    description: 'Moving, recording and planning the money of an organization.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-501',
        name: 'Accounts Payable',
        description: 'Recording and paying what is owed to suppliers.',
      },
      {
        code: 'OI-502',
        name: 'Accounts Receivable',
        description: 'Tracking and collecting what customers owe.',
      },
      {
        code: 'OI-503',
        name: 'Billing & Invoicing',
        description: 'Producing and sending invoices for goods and services.',
      },
      { code: 'OI-504', name: 'Payroll', description: 'Calculating and paying employee wages.' },
      {
        code: 'OI-505',
        name: 'Treasury & Cash',
        description: 'Managing bank balances, liquidity and transfers.',
      },
      {
        code: 'OI-506',
        name: 'Budgeting & Planning',
        description: 'Setting and tracking spending plans and forecasts.',
      },
      { code: 'OI-507', name: 'Procurement', description: 'Approving and placing purchase orders.' },
      {
        code: 'OI-508',
        name: 'Tax & Compliance',
        description: 'Preparing tax filings and meeting financial regulations.',
      },
    ],
  },
  {
    code: 'OI-600',
    name: 'Supply Chain',
    description: 'Sourcing, storing and moving goods from suppliers to customers.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-601',
        name: 'Procurement Lifecycle',
        description: 'Taking a purchase from request through sourcing to receipt.',
      },
      {
        code: 'OI-602',
        name: 'Vendor Management',
        description: 'Onboarding, evaluating and maintaining supplier relationships.',
      },
      {
        code: 'OI-603',
        name: 'Logistics & Fulfillment',
        description: 'Shipping orders and arranging transport.',
      },
      {
        code: 'OI-604',
        name: 'Inventory Management',
        description: 'Tracking and adjusting stock levels across locations.',
      },
      {
        code: 'OI-605',
        name: 'Quality Assurance',
        description: 'Checking that received and shipped goods meet standards.',
      },
    ],
  },
  {
    code: 'OI-700',
    name: 'People Operations',
    description: 'Managing the employees of an organization across their working life.',
    surface: 'digital',
    categories: [
      { code: 'OI-701', name: 'Recruiting', description: 'Sourcing, interviewing and hiring candidates.' },
      {
        code: 'OI-702',
        name: 'Onboarding & Offboarding',
        description: 'Setting up people who join and removing access of people who leave.',
      },
      {
        code: 'OI-703',
        name: 'Compensation & Benefits',
        description: 'Setting pay, bonuses and employee benefits.',
      },
      {
        code: 'OI-704',
        name: 'Time & Attendance',
        description: 'Recording hours worked, leave and absences.',
      },
      {
        code: 'OI-705',
        name: 'Performance Management',
        description: 'Running reviews, goals and feedback cycles.',
      },
      {
        code: 'OI-706',
        name: 'Learning & Development',
        description: 'Organizing training and skill building.',
      },
    ],
  },
  {
    code: 'OI-800',
    name: 'Revenue Operations',
    description: 'Running the sales and marketing processes that bring in revenue.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-801',
        name: 'Pipeline Management',
        description: 'Tracking leads and opportunities through sales stages.',
      },
      {
        code: 'OI-802',
        name: 'Deal Execution',
        description: 'Preparing quotes and closing contracts with buyers.',
      },
      {
        code: 'OI-803',
        name: 'Renewals & Expansion',
        description: 'Renewing and growing existing customer agreements.',
      },
      {
        code: 'OI-804',
        name: 'Sales Analytics',
        description: 'Reporting on sales performance and forecasts.',
      },
      {
        code: 'OI-805',
        name: 'Campaign Operations',
        description: 'Planning and sending marketing campaigns.',
      },
    ],
  },
  {
    code: 'OI-900',
    name: 'Customer Experience',
    description: 'Supporting customers and measuring how well they are served.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-901',
        name: 'Support Operations',
        description: 'Handling customer tickets, chats and calls.',
      },
      {
        code: 'OI-902',
        name: 'Customer Success',
        description: 'Helping customers adopt and get value from a product.',
      },
      {
        code: 'OI-903',
        name: 'Complaint Management',
        description: 'Recording and resolving customer complaints.',
      },
      {
        code: 'OI-904',
        name: 'Returns & Warranty',
        description: 'Processing returns, refunds and warranty claims.',
      },
      {
        code: 'OI-905',
        name: 'Satisfaction Measurement',
        description: 'Collecting and analysing customer feedback scores.',
      },
    ],
  },
  {
    code: 'OI-1000',
    name: 'Enterprise Operations',
    description: 'Cross-functional coordination and management of an organization.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-1001',
        name: 'Project Management',
        description: 'Planning, scheduling and tracking projects.',
      },
      {
        code: 'OI-1002',
        name: 'Quality Management',
        description: 'Running organization-wide quality programmes.',
      },
      {
        code: 'OI-1003',
        name: 'Change Management',
        description: 'Coordinating organizational and process changes.',
      },
      {
        code: 'OI-1004',
        name: 'Knowledge Management',
        description: 'Capturing and sharing documentation and know-how.',
      },
      {
        code: 'OI-1005',
        name: 'Analytics & Reporting',
        description: 'Producing dashboards and business reports.',
      },
      {
        code: 'OI-1006',
        name: 'Strategic Planning',
        description: 'Setting long-term goals and priorities.',
      },
    ],
  },
  {
    code: 'OI-1100',
    name: 'Service Delivery',
    description: 'Delivering contracted services to clients from planning to completion.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-1101',
        name: 'Resource Planning',
        description: 'Assigning people and equipment to service work.',
      },
      { code: 'OI-1102', name: 'Service Execution', description: 'Carrying out the agreed service work.' },
      {
        code: 'OI-1103',
        name: 'Completion Management',
        description: 'Confirming, signing off and closing delivered work.',
      },
      {
        code: 'OI-1104',
        name: 'SLA Compliance',
        description: 'Checking delivered service against agreed service levels.',
      },
    ],
  },
  {
    code: 'OI-1200',
    name: 'Risk Management',
    description: 'Identifying and controlling business, legal and regulatory risk.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-1201',
        name: 'Risk Assessment',
        description: 'Identifying and rating risks to the organization.',
      },
      {
        code: 'OI-1202',
        name: 'Risk Mitigation',
        description: 'Putting controls in place to reduce identified risks.',
      },
      {
        code: 'OI-1203',
        name: 'Compliance Management',
        description: 'Tracking obligations and evidence for audits and regulators.',
      },
      {
        code: 'OI-1204',
        name: 'Business Continuity',
        description: 'Preparing to keep operating through disruptions.',
      },
      {
        code: 'OI-1205',
        name: 'Contract & Legal',
        description: 'Drafting, reviewing and tracking contracts and legal matters.',
      },
    ],
  },
  {
    code: 'OI-1300',
    name: 'Product Operations',
    description: 'Managing products and their data from idea to retirement.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-1301',
        name: 'Product Lifecycle',
        description: 'Moving products through launch, updates and end of life.',
      },
      {
        code: 'OI-1302',
        name: 'Master Data Management',
        description: 'Keeping core product and reference records consistent.',
      },
      {
        code: 'OI-1303',
        name: 'Regulatory Submissions',
        description: 'Preparing filings that regulators require for products.',
      },
      {
        code: 'OI-1304',
        name: 'Discovery & Research',
        description: 'Investigating user needs and new product ideas.',
      },
    ],
  },
  {
    code: 'OI-1400',
    name: 'Asset Management',
    description: 'Tracking and maintaining the physical and digital assets an organization owns.',
    surface: 'digital',
    categories: [
      {
        code: 'OI-1401',
        name: 'Maintenance Scheduling',
        description: 'Planning when assets are inspected and serviced.',
      },
      {
        code: 'OI-1402',
        name: 'Maintenance Execution',
        description: 'Recording service work carried out on assets.',
      },
      {
        code: 'OI-1403',
        name: 'Decommissioning',
        description: 'Retiring and disposing of assets at end of life.',
      },
      {
        code: 'OI-1404',
        name: 'Facility Management',
        description: 'Running buildings, rooms and their services.',
      },
      {
        code: 'OI-1405',
        name: 'Asset Tracking',
        description: 'Knowing where assets are and who holds them.',
      },
    ],
  },
  {
    code: 'OI-1500',
    name: 'Manipulation',
    description: 'Robots handling and working on objects with arms and grippers.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-1501',
        name: 'Grasp Planning',
        description: 'Choosing how and where to take hold of an object.',
      },
      {
        code: 'OI-1502',
        name: 'Pick & Place',
        description: 'Lifting an object and putting it down somewhere else.',
      },
      { code: 'OI-1503', name: 'Assembly', description: 'Joining parts together into a larger whole.' },
      {
        code: 'OI-1504',
        name: 'Tool Use',
        description: 'Operating a held tool such as a drill or screwdriver.',
      },
      {
        code: 'OI-1505',
        name: 'Dexterous Manipulation',
        description: 'Fine, multi-finger handling of small or delicate items.',
      },
      {
        code: 'OI-1506',
        name: 'Force-Sensitive Operations',
        description: 'Tasks that must limit or regulate applied force.',
      },
    ],
  },
  {
    code: 'OI-1600',
    name: 'Locomotion & Mobility',
    description: 'Machines moving themselves through the world.',
    surface: 'physical',
    categories: [
      { code: 'OI-1601', name: 'Path Planning', description: 'Working out a route to a destination.' },
      {
        code: 'OI-1602',
        name: 'Obstacle Avoidance',
        description: 'Steering around things in the way while moving.',
      },
      {
        code: 'OI-1603',
        name: 'Wheeled Navigation',
        description: 'Driving wheeled or tracked platforms.',
      },
      {
        code: 'OI-1604',
        name: 'Legged Locomotion',
        description: 'Walking, climbing and balancing on legs.',
      },
      {
        code: 'OI-1605',
        name: 'Aerial Flight Path',
        description: 'Planning and following routes through the air.',
      },
      {
        code: 'OI-1606',
        name: 'Marine Navigation',
        description: 'Moving on or under water.',
      },
    ],
  },
  {
    code: 'OI-1700',
    name: 'Sensing & Perception',
    description: 'Machines gathering and interpreting sensor data about their surroundings.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-1701',
        name: 'Computer Vision',
        description: 'Understanding scenes from camera images.',
      },
      {
        code: 'OI-1702',
        name: 'LiDAR & Depth',
        description: 'Measuring distance and shape with laser or depth sensors.',
      },
      { code: 'OI-1703', name: 'Audio Sensing', description: 'Detecting and interpreting sounds.' },
      {
        code: 'OI-1704',
        name: 'Tactile & Force',
        description: 'Sensing contact, pressure and force.',
      },
      {
        code: 'OI-1705',
        name: 'Environmental Sensing',
        description: 'Measuring temperature, gas, humidity and similar conditions.',
      },
      {
        code: 'OI-1706',
        name: 'Inertial & Localization',
        description: 'Estimating own position, orientation and motion.',
      },
      {
        code: 'OI-1707',
        name: 'Sensor Calibration',
        description: 'Aligning and correcting sensors so readings stay accurate.',
      },
    ],
  },
  {
    code: 'OI-1800',
    name: 'Actuation & Control',
    description: 'Driving motors, valves and power that make machines act; also the generic actuation code.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-1801',
        name: 'Motor Control',
        description: 'Commanding the speed, position or torque of motors.',
      },
      {
        code: 'OI-1802',
        name: 'Pneumatic & Hydraulic',
        description: 'Operating air- and fluid-powered actuators.',
      },
      {
        code: 'OI-1803',
        name: 'Thermal & HVAC',
        description: 'Heating, cooling and ventilation control.',
      },
      {
        code: 'OI-1804',
        name: 'Power Distribution',
        description: 'Switching and routing electrical power to equipment.',
      },
      {
        code: 'OI-1805',
        name: 'Closed-Loop Tuning',
        description: 'Adjusting feedback controller parameters.',
      },
    ],
  },
  {
    code: 'OI-1900',
    name: 'Manufacturing & Production',
    description: 'Machines making goods on factory floors.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-1901',
        name: 'Assembly Line Control',
        description: 'Starting, stopping and pacing production lines.',
      },
      {
        code: 'OI-1902',
        name: 'CNC & Machining',
        description: 'Cutting and shaping material with programmed machines.',
      },
      {
        code: 'OI-1903',
        name: 'Additive Manufacturing',
        description: 'Building parts layer by layer, as in 3D printing.',
      },
      {
        code: 'OI-1904',
        name: 'Batch Processing',
        description: 'Running recipes on batches in process plants.',
      },
      {
        code: 'OI-1905',
        name: 'Quality Inspection',
        description: 'Checking produced parts for defects.',
      },
      {
        code: 'OI-1906',
        name: 'Material Handling',
        description: 'Moving raw material and parts within a plant.',
      },
      {
        code: 'OI-1907',
        name: 'Production Scheduling',
        description: 'Deciding what is made on which machine and when.',
      },
    ],
  },
  {
    code: 'OI-2000',
    name: 'Autonomous Vehicles',
    description: 'Self-driving road vehicles and the fleets they belong to.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-2001',
        name: 'Driving Decisions',
        description: 'Choosing lane, speed and manoeuvres while driving.',
      },
      {
        code: 'OI-2002',
        name: 'Sensor Fusion',
        description: 'Combining several sensors into one picture of the road.',
      },
      { code: 'OI-2003', name: 'Mission Planning', description: 'Planning trips, stops and routes.' },
      {
        code: 'OI-2004',
        name: 'V2X Communication',
        description: 'Exchanging messages with other vehicles and road infrastructure.',
      },
      {
        code: 'OI-2005',
        name: 'Driver Handoff',
        description: 'Passing control between the system and a human driver.',
      },
      {
        code: 'OI-2006',
        name: 'Vehicle Health',
        description: 'Monitoring and diagnosing the state of the vehicle.',
      },
      {
        code: 'OI-2007',
        name: 'Fleet Operations',
        description: 'Dispatching and coordinating many vehicles.',
      },
    ],
  },
  {
    code: 'OI-2100',
    name: 'Aerial Systems',
    description: 'Drones and other uncrewed aircraft.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-2101',
        name: 'Flight Operations',
        description: 'Taking off, flying and landing an aircraft.',
      },
      {
        code: 'OI-2102',
        name: 'Airspace Compliance',
        description: 'Respecting airspace rules, permissions and no-fly zones.',
      },
      {
        code: 'OI-2103',
        name: 'Payload Operations',
        description: 'Operating cameras, sprayers or cargo carried in flight.',
      },
      {
        code: 'OI-2104',
        name: 'Tether & Power',
        description: 'Managing tethers, batteries and charging of aircraft.',
      },
      {
        code: 'OI-2105',
        name: 'Beyond-Visual-Line-of-Sight',
        description: 'Flying where the operator cannot see the aircraft.',
      },
      {
        code: 'OI-2106',
        name: 'Multi-Drone Coordination',
        description: 'Flying several aircraft together without conflict.',
      },
    ],
  },
  {
    code: 'OI-2200',
    name: 'Surgical & Medical Robotics',
    description: 'Robots working with patients, medicines and clinical samples.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-2201',
        name: 'Surgical Procedure',
        description: 'Robot-assisted steps of an operation.',
      },
      {
        code: 'OI-2202',
        name: 'Patient Positioning',
        description: 'Moving a patient or table into place for treatment.',
      },
      {
        code: 'OI-2203',
        name: 'Medication Dispensing',
        description: 'Preparing and handing out doses of medicine.',
      },
      {
        code: 'OI-2204',
        name: 'Diagnostic Imaging',
        description: 'Operating scanners and imaging equipment.',
      },
      {
        code: 'OI-2205',
        name: 'Sample Handling',
        description: 'Moving and processing clinical and laboratory samples.',
      },
      {
        code: 'OI-2206',
        name: 'Sterilization & Cleaning',
        description: 'Disinfecting rooms, instruments and equipment.',
      },
      {
        code: 'OI-2207',
        name: 'Patient Telemetry',
        description: 'Reading and relaying patient vital signs.',
      },
    ],
  },
  {
    code: 'OI-2300',
    name: 'Agricultural Operations',
    description: 'Machines working fields, crops and livestock.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-2301',
        name: 'Field Operations',
        description: 'Planting, tilling and harvesting with field machinery.',
      },
      { code: 'OI-2302', name: 'Irrigation', description: 'Controlling water delivery to crops.' },
      {
        code: 'OI-2303',
        name: 'Pest & Disease Management',
        description: 'Applying treatments against pests and plant disease.',
      },
      {
        code: 'OI-2304',
        name: 'Livestock Management',
        description: 'Feeding, milking and monitoring animals.',
      },
      {
        code: 'OI-2305',
        name: 'Greenhouse & Controlled Environment',
        description: 'Regulating climate and light for indoor growing.',
      },
      {
        code: 'OI-2306',
        name: 'Yield & Inventory',
        description: 'Measuring harvests and stored produce.',
      },
    ],
  },
  {
    code: 'OI-2400',
    name: 'Construction & Excavation',
    description: 'Heavy machinery building structures and moving earth.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-2401',
        name: 'Site Preparation',
        description: 'Clearing and surveying ground before building.',
      },
      { code: 'OI-2402', name: 'Earthworks', description: 'Digging, grading and moving soil.' },
      {
        code: 'OI-2403',
        name: 'Structural Operations',
        description: 'Erecting frames, walls and other structures.',
      },
      { code: 'OI-2404', name: 'Demolition', description: 'Taking down structures in a controlled way.' },
      {
        code: 'OI-2405',
        name: 'Lifting & Cranes',
        description: 'Hoisting heavy loads with cranes and lifts.',
      },
      {
        code: 'OI-2406',
        name: 'Heavy-Equipment Coordination',
        description: 'Keeping several machines on one site working safely together.',
      },
    ],
  },
  {
    code: 'OI-2500',
    name: 'Hazardous Environments',
    description: 'Machines working where conditions are dangerous for people.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-2501',
        name: 'Nuclear Operations',
        description: 'Handling work in radioactive areas and facilities.',
      },
      {
        code: 'OI-2502',
        name: 'Subsea & ROV',
        description: 'Operating remotely controlled vehicles under water.',
      },
      {
        code: 'OI-2503',
        name: 'Space Operations',
        description: 'Operating robots in orbit or on other bodies.',
      },
      {
        code: 'OI-2504',
        name: 'Contaminated Site Remediation',
        description: 'Cleaning up polluted ground, water or buildings.',
      },
      {
        code: 'OI-2505',
        name: 'EOD & Bomb Disposal',
        description: 'Inspecting and neutralising explosive devices.',
      },
      {
        code: 'OI-2506',
        name: 'Confined-Space Entry',
        description: 'Working inside tanks, pipes and other tight enclosed spaces.',
      },
    ],
  },
  {
    code: 'OI-2600',
    name: 'Energy & Utilities',
    description: 'Producing, storing and distributing energy and utility services.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-2601',
        name: 'Generation Control',
        description: 'Starting, stopping and setting output of power plants.',
      },
      {
        code: 'OI-2602',
        name: 'Grid Operations',
        description: 'Balancing and protecting the transmission grid.',
      },
      {
        code: 'OI-2603',
        name: 'Distribution & Switching',
        description: 'Opening and closing circuits on local networks.',
      },
      {
        code: 'OI-2604',
        name: 'Storage & Battery',
        description: 'Charging and discharging energy storage systems.',
      },
      {
        code: 'OI-2605',
        name: 'Demand Response',
        description: 'Shifting or reducing consumption when the grid asks.',
      },
      {
        code: 'OI-2606',
        name: 'Meter & Field Operations',
        description: 'Reading meters and servicing field equipment.',
      },
    ],
  },
  {
    code: 'OI-2700',
    name: 'Mining & Resource Extraction',
    description: 'Machines extracting and processing minerals, oil and gas.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-2701',
        name: 'Drilling & Blasting',
        description: 'Drilling holes and setting off charges to break rock.',
      },
      {
        code: 'OI-2702',
        name: 'Loading & Hauling',
        description: 'Loading ore and moving it out of the mine.',
      },
      {
        code: 'OI-2703',
        name: 'Beneficiation',
        description: 'Crushing and separating ore to raise its grade.',
      },
      {
        code: 'OI-2704',
        name: 'Wellfield Operations',
        description: 'Running wells that extract fluids from the ground.',
      },
      {
        code: 'OI-2705',
        name: 'Geotechnical Monitoring',
        description: 'Watching slopes, walls and ground for movement.',
      },
    ],
  },
  {
    code: 'OI-2800',
    name: 'Logistics & Material Handling',
    description: 'Machines storing, sorting and moving goods in transit.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-2801',
        name: 'Warehouse Robotics',
        description: 'Robots picking and moving stock inside warehouses.',
      },
      {
        code: 'OI-2802',
        name: 'Cross-Dock & Sortation',
        description: 'Sorting parcels and transferring goods between vehicles.',
      },
      {
        code: 'OI-2803',
        name: 'Yard & Trailer Operations',
        description: 'Moving trailers and containers around a depot yard.',
      },
      {
        code: 'OI-2804',
        name: 'Last-Mile Delivery',
        description: 'Bringing parcels to their final recipient.',
      },
      {
        code: 'OI-2805',
        name: 'Port & Marine Cargo',
        description: 'Loading and unloading ships and port cranes.',
      },
      {
        code: 'OI-2806',
        name: 'Cold Chain',
        description: 'Keeping temperature-sensitive goods within limits in transit.',
      },
    ],
  },
  {
    code: 'OI-2900',
    name: 'Embodied AI Safety',
    description: 'Functions that keep people and property safe around machines.',
    surface: 'physical',
    categories: [
      {
        code: 'OI-2901',
        name: 'Emergency Stop',
        description: 'Bringing a machine to an immediate safe halt.',
        safety: true,
      },
      {
        code: 'OI-2902',
        name: 'Geofencing',
        description: 'Keeping a machine inside or outside defined areas.',
        safety: true,
      },
      {
        code: 'OI-2903',
        name: 'Human-Presence Detection',
        description: 'Noticing people nearby and reacting to them.',
        safety: true,
      },
      {
        code: 'OI-2904',
        name: 'Safety-Rated Motion',
        description: 'Limiting speed, force and range to certified safe values.',
        safety: true,
      },
      {
        code: 'OI-2905',
        name: 'Lockout / Tagout',
        description: 'Isolating energy sources before servicing a machine.',
        safety: true,
      },
      {
        code: 'OI-2906',
        name: 'Collision Avoidance',
        description: 'Preventing contact with people, objects and other machines.',
        safety: true,
      },
      {
        code: 'OI-2907',
        name: 'Compliance & Certification',
        description: 'Meeting and proving conformance with safety standards.',
        safety: true,
      },
    ],
  },
];
