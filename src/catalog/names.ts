import type { GameType } from './catalog.ts';
import type { Rng } from './seed.ts';

/*
 * Word lists for game names that read like a real lobby. Each type composes its own way:
 * slots as "Sweet Bonanza" / "Gates of Olympus" / "Dragon's Fortune Megaways", live tables as
 * "Lightning Roulette" / "Speed Baccarat A", shows as "Crazy Time", crash as "Jet X", fishing as
 * "Ocean King 3". Changing a list changes every catalog, so append rather than reorder.
 */

/** A word list written as `a | b | c` (one string keeps it compact and readable). */
function words(list: string): readonly string[] {
  return list
    .split('|')
    .map((word) => word.trim())
    .filter(Boolean);
}

const SLOT_ADJECTIVES = words(`
  Sweet | Wild | Golden | Lucky | Big | Mega | Fire | Hot | Royal | Magic | Mystic | Ancient | Sugar | Diamond |
  Crystal | Dragon | Jungle | Aztec | Viking | Pirate | Neon | Cosmic | Frozen | Blazing | Fruity | Juicy |
  Starlight | Midnight | Thunder | Buffalo | Wolf | Tiger | Phoenix | Emerald | Ruby | Jade | Sakura | Samurai |
  Cash | Money | Shining | Super | Hyper | Crazy | Happy | Spooky | Wild West | Silver | Candy | Lava
`);
const SLOT_NOUNS = words(`
  Bonanza | Fortune | Rush | Riches | Gems | Gold | Treasure | Jackpot | Spins | Reels | Fruits | Stars | Nights |
  Empire | Kingdom | Quest | Legends | Wilds | Wins | Blast | Party | Fiesta | Hunt | Heist | Temple | Tales |
  Dreams | Coins | Crown | Bells | Sevens | Bandits | Warriors | Goddess | Pharaoh | Safari | Express | Mania |
  Frenzy | Storm | Power | Queen | King | Land | Mine | Village | Carnival | Reactor | Farm | Circus
`);
const SLOT_OBJECTS = words(`
  Gates | Book | Temple | Rise | Legacy | Eye | Gems | Tome | Wrath | Curse | Crown | Shield | Sword | Hall |
  Tower | Secrets | Reign | Treasures | Wolves | Pillars | Riches | Return | Age | Power | Hand | Mask | Ship
`);
const SLOT_PLACES = words(`
  Olympus | Egypt | Ra | the Dead | Atlantis | Asgard | Valhalla | Anubis | Zeus | Athena | Poseidon | Cleopatra |
  Persia | Babylon | Troy | Avalon | Camelot | Shangri-La | El Dorado | the Gods | the Nile | the Dragon |
  the Amazon | Fortune | Luck | Gold | Midas | Madness | Merlin | Sparta | Rome | Rio | the Kraken |
  the Pharaohs | Horus
`);
const SLOT_OWNERS = words(`
  Dragon | Pirate | Wizard | Leprechaun | Pharaoh | Gnome | King | Queen | Viking | Joker | Fisherman | Miner |
  Sultan | Mermaid | Genie | Buffalo | Panda | Samurai | Ninja | Witch | Zeus | Cowboy | Gambler | Santa | Dwarf |
  Robin | Captain | Monkey | Emperor | Sheriff
`);
const SLOT_POSSESSIONS = words(`
  Fortune | Gold | Treasure | Luck | Riches | Gems | Loot | Magic | Wish | Jackpot | Quest | Revenge | Secret |
  Palace | Lair | Bounty | Hoard | Feast | Party | Vault | Gold Rush | Cauldron
`);
const SLOT_SUFFIXES = words(`
  Megaways | Deluxe | Hold & Win | 1000 | Xmas | Dice | Power Reels | Ultra | Rising | Scatter | Bonus Buy |
  Dream Drop | Extreme | Gigablox | Cluster Pays | Reloaded | Returns | 2 | II | Unleashed | Infinity Reels |
  Xtreme | Hot 20 | 40 Lines | 100 | Super Scatter | Respin
`);

const LIVE_PREFIXES = words(`
  Lightning | Speed | VIP | Immersive | Auto | Grand | Infinite | Power | Quantum | Gold Vault | First Person |
  Mega | XXXtreme Lightning | Salon Privé | Prestige | Golden Wealth | Fortune | Super | Mini | Royal | Instant |
  Double Ball | Peek | Squeeze | No Commission | Free Bet | One | Classic | Turbo | Platinum
`);
const LIVE_GAMES = words(`
  Roulette | Baccarat | Blackjack | Sic Bo | Dragon Tiger | Andar Bahar | Teen Patti | Casino Hold'em |
  Three Card Poker | Fan Tan | Craps | Bac Bo | Side Bet City | Football Studio | Texas Hold'em Bonus Poker
`);
const LIVE_TABLE_TAGS = words(`
  A | B | C | D | E | F | G | H | 1 | 2 | 3 | 5 | 7 | Italiana | Deutsch | Français | Español | Português |
  Svenska | Türkçe | Arabic | Hindi | Ruby | Emerald | Live | Lobby
`);
const SHOW_ADJECTIVES = words(`
  Crazy | Funky | Mega | Lucky | Golden | Monster | Super | Wild | Cash | Big | Jackpot | Fortune | Dream |
  Sweet | Boom | Magic
`);
const SHOW_NOUNS = words(`
  Time | Wheel | Ball | Coin Flip | Catcher | Bonanza | Balloon | Drop | Dice | Show | Spin | Party | Pachinko |
  Plinko | City | Fever | Deal | Treasure Map
`);

const CRASH_BASES = words(`
  Aviator | JetX | Spaceman | Rocket | Balloon | Crash | Limbo | Plinko | Mines | Dice | Hi-Lo | Keno | Goal |
  Mini Roulette | Hotline | Tower | Zeppelin | Comet | Astronaut | Pilot | Lucky Jet | Space XY | Moon | Meteor |
  Chicken Road | Penalty | Jet | Cappadocia | Hamster Run | Big Bass Crash
`);
const CRASH_ADJECTIVES = ['Wild', 'Turbo', 'Star', 'Sky', 'Neon', 'Mega', 'Golden', 'Blue', 'Hyper', 'Cyber', 'Retro', 'Royal'];
const CRASH_SUFFIXES = ['X', '2', 'Pro', 'Turbo', '3D', 'Max', 'Deluxe', 'XY', 'Rush', 'Go'];

const TABLE_VARIANTS = words(`
  European | American | French | Classic | Multihand | Premium | Double Exposure | Vegas | Atlantic City |
  Single Deck | Zoom | Mini | Pro | Gold | Perfect Pairs | Super 7 | 3D | Multi-Wheel | Lucky Ladies | Royal
`);
const TABLE_GAMES = words(`
  Roulette | Blackjack | Baccarat | Casino Hold'em | Three Card Poker | Caribbean Stud | Pai Gow | Red Dog |
  Sic Bo | Craps | Oasis Poker | Let It Ride | Texas Hold'em | Video Poker | Jacks or Better | Deuces Wild |
  Joker Poker | Keno | Scratch Card | War
`);

const FISHING_ADJECTIVES = words(`
  Ocean | Royal | Dragon | Golden | Mega | Jackpot | Happy | Bombing | All-Star | Deep Sea | Fortune | Boom |
  Lucky | Crazy | Super | Monster | Treasure | Thunder | Mermaid | Shark
`);
const FISHING_NOUNS = words(`
  King | Fishing | Hunter | Legend | Blaster | Fish | Catch | Bounty | War | Party | Reef | Kingdom | Fury |
  Master | God | Frenzy
`);

const BINGO_THEMES = words(`
  Pirate | Rio | Samba | Lucky | Bonanza | Candy | Jungle | Pop | Disco | Gold | Party | Cash | Mega | Super |
  Viking | Aztec | Egypt | Halloween | Xmas | Tribal | Fruit | Neon | Cosmic | Ocean | Carnival | Fiesta
`);
const BINGO_SUFFIXES = ['90', '75', '30', 'Deluxe', 'Blast', 'Rush', 'Party', 'Gold'];

const VIRTUAL_SPORTS = words(`
  Football | Horse Racing | Greyhounds | Tennis | Basketball | Cricket | Motor Racing | Cycling | Speedway |
  Darts | Penalty Kicks | Boxing | Table Tennis | Ice Hockey | Baseball | Harness Racing
`);
const VIRTUAL_EVENTS = words(`
  League | Cup | World Cup | Champions | Derby | Grand Prix | Dash | Sprint | Masters | Open | Pro | Nations |
  Kings | Express | Live | Series
`);

const FISHING_NUMBERS = ['2', '3', '4', '5', 'Plus', 'Deluxe', '2 Online'];

/** A plausible name for a game of `type`, drawn from `rng`; not necessarily unique. */
export function gameName(rng: Rng, type: GameType): string {
  return NAMERS[type](rng);
}

const NAMERS = {
  slot: slotName,
  live: liveName,
  crash: crashName,
  table: (rng) =>
    rng.chance(0.5)
      ? `${rng.pick(TABLE_VARIANTS)} ${rng.pick(TABLE_GAMES)}`
      : `${rng.pick(TABLE_GAMES)} ${rng.pick(TABLE_VARIANTS)}`,
  fishing: (rng) => {
    const name = `${rng.pick(FISHING_ADJECTIVES)} ${rng.pick(FISHING_NOUNS)}`;
    return rng.chance(0.4) ? `${name} ${rng.pick(FISHING_NUMBERS)}` : name;
  },
  bingo: (rng) => {
    const name = rng.chance(0.5) ? `${rng.pick(BINGO_THEMES)} Bingo` : `Bingo ${rng.pick(BINGO_THEMES)}`;
    return rng.chance(0.4) ? `${name} ${rng.pick(BINGO_SUFFIXES)}` : name;
  },
  virtual: (rng) => `${rng.chance(0.4) ? 'Virtual ' : ''}${rng.pick(VIRTUAL_SPORTS)} ${rng.pick(VIRTUAL_EVENTS)}`,
} satisfies Record<GameType, (rng: Rng) => string>;

function slotName(rng: Rng): string {
  const roll = rng.next();
  const stem =
    roll < 0.5
      ? `${rng.pick(SLOT_ADJECTIVES)} ${rng.pick(SLOT_NOUNS)}`
      : roll < 0.75
        ? `${rng.pick(SLOT_OBJECTS)} of ${rng.pick(SLOT_PLACES)}`
        : `${rng.pick(SLOT_OWNERS)}'s ${rng.pick(SLOT_POSSESSIONS)}`;
  return rng.chance(0.3) ? `${stem} ${rng.pick(SLOT_SUFFIXES)}` : stem;
}

function liveName(rng: Rng): string {
  if (rng.chance(0.25)) return `${rng.pick(SHOW_ADJECTIVES)} ${rng.pick(SHOW_NOUNS)}`;
  const game = rng.next() < 0.75 ? `${rng.pick(LIVE_PREFIXES)} ${rng.pick(LIVE_GAMES)}` : rng.pick(LIVE_GAMES);
  return rng.chance(0.45) ? `${game} ${rng.pick(LIVE_TABLE_TAGS)}` : game;
}

function crashName(rng: Rng): string {
  const roll = rng.next();
  if (roll < 0.4) return rng.pick(CRASH_BASES);
  if (roll < 0.7) return `${rng.pick(CRASH_ADJECTIVES)} ${rng.pick(CRASH_BASES)}`;
  return `${rng.pick(CRASH_BASES)} ${rng.pick(CRASH_SUFFIXES)}`;
}

/**
 * The names already used in one provider. A clash is redrawn a few times, then numbered
 * ("Sweet Bonanza 2"), so uniqueness costs O(1) per game even for a million games.
 */
export class GameNameRegistry {
  private readonly taken = new Set<string>();
  private readonly nextNumber = new Map<string, number>();

  has(name: string): boolean {
    return this.taken.has(name.toLowerCase());
  }

  /** Records a name chosen elsewhere (a fixture's), so later draws avoid it. */
  add(name: string): void {
    this.taken.add(name.toLowerCase());
  }

  /** Draws a name for `type` that this provider does not have yet, and records it. */
  draw(rng: Rng, type: GameType): string {
    let name = gameName(rng, type);
    for (let attempt = 0; attempt < 3 && this.has(name); attempt++) name = gameName(rng, type);
    if (this.has(name)) {
      const stem = name.toLowerCase();
      let n = this.nextNumber.get(stem) ?? 2;
      while (this.has(`${name} ${n}`)) n++;
      this.nextNumber.set(stem, n + 1);
      name = `${name} ${n}`;
    }
    this.add(name);
    return name;
  }
}
